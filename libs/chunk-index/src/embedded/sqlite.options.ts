import type { IvfOptions } from './ivf.options';
import type { IvfPrefetch } from './ivf.prefetch';
import { FieldWeights, queryWords, STOP_WORDS } from '../analysis/analyzer';
import { Bm25Params, DEFAULT_BM25 } from '../analysis/bm25';
import { SHORT_FORM_WEIGHT } from '../analysis/short-forms';
import type { LexicalInput } from './lexical/input';

/** The embedded chunk index's options: the IVF's, the lexical query's and the read worker's. */

export interface SqliteChunkIndexOptions extends IvfOptions {
  /** Lexical reads on a read-only connection in a worker thread (file databases; default true). */
  readWorker?: boolean;
  /** How the BM25 query is built (lexical/search.ts); defaults: DEFAULT_LEXICAL_OPTIONS. */
  lexical?: Partial<LexicalOptions>;
  /** Chunks per postings block (default 128; tests use small blocks to exercise the block bounds). */
  lexicalBlockSize?: number;
  /** The path and symbol fields' weights the index is built with (default DEFAULT_FIELD_WEIGHTS; the quality bench measures others). */
  lexicalFieldWeights?: FieldWeights;
  /** The IVF lists being read in a worker thread since the process began (ivf.prefetch.ts): `setup()` takes them if the file has not changed since. */
  ivfPrefetch?: IvfPrefetch | null;
  /**
   * Bytes of the largest lists' blocks the read worker reads into its block cache once it starts, in
   * slices between queries (preloadLexical; default DEFAULT_PRELOAD_BYTES, capped at the cache's bound;
   * 0: none). Only where the read worker runs.
   */
  lexicalPreloadBytes?: number;
  /**
   * The read worker runs the lexical search's code on a small synthetic store of its own as it starts, before
   * its first query (lexical/warm-up.ts; default true): a worker just started otherwise runs it unoptimised for
   * its first hundreds of queries. Only where the read worker runs.
   */
  lexicalWarmUp?: boolean;
  /** SQLite's page cache of each connection to the file (the index's and its read worker's), bytes (default DEFAULT_PAGE_CACHE_BYTES). */
  pageCacheBytes?: number;
  /** Bytes of the exact scans' vectors kept in memory (stores below the IVF's threshold; default DEFAULT_EXACT_SCAN_CACHE_BYTES). */
  exactScanCacheBytes?: number;
}

/**
 * The lexical query's options: stop words dropped, the exact form's bonus, RM3 pseudo-relevance
 * feedback (null: none) and the fewest words (not counting stop words) a query needs to get it,
 * BM25's k1 and b and the headings' weight.
 */
export type LexicalOptions = Pick<
  LexicalInput,
  | 'stopWords'
  | 'feedback'
  | 'exactBonus'
  | 'shortFormWeight'
  | 'codeB'
  | 'multiChunkB'
  | 'flatMaxPostings'
  | 'blockCacheBytes'
  | 'flatCostRatio'
  | 'denseMinPostings'
> &
  Bm25Params & { feedbackMinWords: number };

/**
 * Chosen on CISI and GCIDE (bench/quality/; README, Benchmarks): stop words on, a
 * word's exact form worth 0.3 of its stem, k1 1.6, b 0.4, headings ×2; RM3 feedback with 10 chunks,
 * 10 terms and the query weighted 0.9, for queries of at least 14 words that are not stop words.
 * Feedback for every query wins on CISI (hybrid nDCG@10 +0.010) but loses on GCIDE (−0.005): its
 * short definitions drift; from 14 words CISI gains +0.013 and GCIDE +0.001. It costs a second BM25
 * pass, which only those long queries pay.
 */
export const RM3_FEEDBACK = { docs: 10, terms: 10, originalWeight: 0.9 };
export const RM3_MIN_QUERY_WORDS = 14;
/**
 * BM25's b for a store of code (a store's b moves from b to this with its share of code chunks): code
 * wants the stronger length normalisation, prose the weaker. Chosen on the tuning sets
 * (docs/benchmarks.md): the code sets gain with b up to 0.9, CISI and GCIDE (prose, no code) lose from 0.5.
 */
export const CODE_B = 0.75;
/**
 * BM25's b for a store of long documents (a store's b moves from b to this with its share of chunks that
 * belong to files of several chunks: pages, manuals, long READMEs; one-chunk abstracts and definitions
 * keep b). Chosen on the tuning sets (docs/benchmarks.md): with chunk lengths blended with their file's
 * (normLength), manpages and docs gain, the one-chunk sets (GCIDE, CISI) are unmoved.
 */
export const MULTI_CHUNK_B = 0.75;
/**
 * How long a deferred lexical preload waits for startBackground (a server starts it once it listens: a
 * start at 1M chunks used ~1.5 s more CPU with the preload beside it, on a 2-core machine).
 */
export const BACKGROUND_DEFER_MS = 5_000;

export const DEFAULT_LEXICAL_OPTIONS: LexicalOptions = {
  stopWords: true,
  feedback: RM3_FEEDBACK,
  feedbackMinWords: RM3_MIN_QUERY_WORDS,
  exactBonus: 0.3,
  shortFormWeight: SHORT_FORM_WEIGHT,
  ...DEFAULT_BM25,
  codeB: CODE_B,
  multiChunkB: MULTI_CHUNK_B,
};

/** The words of a query that are not stop words (what `feedbackMinWords` counts), repeats included; an abbreviation is one word. */
export function contentWordCount(text: string): number {
  return queryWords(text, false).filter((w) => !STOP_WORDS.has(w)).length;
}

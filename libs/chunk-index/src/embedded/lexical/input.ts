import { Bm25Params } from '../../analysis/bm25';

/** A lexical query, as the read worker passes it to lexicalProgram. */
export interface LexicalInput extends Bm25Params {
  text: string;
  /** the columns of a hit (`c`: chunks, `f`: files) */
  columns: string;
  storeIds: string[];
  /** only chunks of these files (null: any) / none of these */
  includeFiles?: string[] | null;
  excludeFiles?: string[] | null;
  /** rows wanted (before any metadata filter, which the caller applies) */
  limit: number;
  /**
   * BM25's b for a store whose chunks are all code (a store's b goes from `b` to this with its share of
   * code chunks; default: `b`)
   */
  codeB?: number;
  /**
   * BM25's b for a store whose chunks all belong to files of several chunks (pages, long documents; a
   * store's b goes from `b` to this with their share, before the code share moves it on; default: `b`)
   */
  multiChunkB?: number;
  /** drop English stop words from the query (kept when the query has nothing else) */
  stopWords: boolean;
  /** weight of a query word's exact (unstemmed) form, beside its stem's 1 (0: none) */
  exactBonus: number;
  /** weight of the other forms of a query word's short-form group (`str` for string, `cfg` for configuration; 0: none) */
  shortFormWeight?: number;
  /** RM3 pseudo-relevance feedback: expansion terms from the `docs` best chunks of a first pass, `terms` of them, the original query weighted `originalWeight` */
  feedback?: { docs: number; terms: number; originalWeight: number } | null;
  /**
   * A store's lists are scored term at a time into a flat array (every posting read) when the query's
   * postings there (Σ df over its terms) are at most this many; above, by MaxScore (default
   * FLAT_MAX_POSTINGS). Either way the top is the same, scores summed in the query's term order.
   */
  flatMaxPostings?: number;
  /** Compressed blocks kept between queries, at most this many bytes (default DEFAULT_BLOCK_CACHE_BYTES). */
  blockCacheBytes?: number;
  /**
   * Above flatMaxPostings, the flat scorer still when the query's postings are at most this many times
   * the postings of the list MaxScore must read whole (the one of the largest bound); 0: never
   * (default FLAT_COST_RATIO).
   */
  flatCostRatio?: number;
  /**
   * Lists of at least this many postings that fill at least 1/DENSE_RANGE_PER_POSTING of their id range
   * are kept decoded by id (DenseList) and the query's top taken by impacts (rankImpact); Infinity: never
   * (default DENSE_MIN_POSTINGS).
   */
  denseMinPostings?: number;
  /**
   * A query with dense lists and other lists of at most this many postings in all (×4 for each dense list
   * past the first) is taken by impacts too (rankImpact reads the other lists whole first); above, by
   * MaxScore, which looks the dense lists up (default IMPACT_SPARSE_MAX_POSTINGS).
   */
  impactSparseMaxPostings?: number;
}

/** A store's statistics as a query reads them (lex_stores): its key, live chunks, mean length, shares of code chunks and of chunks of multi-chunk files, tombstones and compaction. */
export interface StoreStats {
  storeId: string;
  key: number;
  n: number;
  avgLength: number;
  codeShare: number;
  multiShare: number;
  dead: number;
  cgen: number;
}

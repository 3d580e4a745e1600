/**
 * BM25 with a heading field (BM25F-style: a term's count is its body count plus `headingWeight` × its
 * heading count, lengths are all words), and Lucene's always-positive IDF. Per store: `n` live chunks,
 * `avgLength` their mean length in words, `df` the live chunks holding the term.
 */
export interface Bm25Params {
  k1: number;
  b: number;
  headingWeight: number;
}

/** Chosen on CISI and GCIDE (bench/quality/; docs/benchmarks.md). */
export const DEFAULT_BM25: Bm25Params = { k1: 1.6, b: 0.4, headingWeight: 2 };

/** Okapi's textbook parameters (k1 1.2, b 0.75; no heading field): the rankings of a candidate set or a pool of sentences (libs/search). */
export const OKAPI_BM25: Bm25Params = { k1: 1.2, b: 0.75, headingWeight: 0 };

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** A term's saturated, length-normalised count (times idf and the query weight it is the term's score). */
export function tfNorm(body: number, heading: number, length: number, avgLength: number, p: Bm25Params): number {
  const tf = body + p.headingWeight * heading;
  return (tf * (p.k1 + 1)) / (tf + p.k1 * (1 - p.b + (p.b * length) / avgLength));
}

/**
 * The share of a chunk's length normalisation that follows its file's length: a chunk is normalised by
 * its length^(1 − FILE_LENGTH_SHARE) × its file's^FILE_LENGTH_SHARE (a one-chunk file's by its own
 * length), so the short tail chunk of a long page is not favoured as a short page is. Chosen on the
 * tuning sets (docs/benchmarks.md).
 */
export const FILE_LENGTH_SHARE = 0.25;

/**
 * The length a chunk is indexed with (its postings and its store's total length): its own length
 * (words but stop words) blended with its file's (the sum of its chunks'), FILE_LENGTH_SHARE; an integer,
 * as the postings store lengths, so a one-chunk file's is its own.
 */
export function normLength(length: number, fileLength: number): number {
  if (length <= 0 || fileLength <= length) return length;
  return Math.round(length ** (1 - FILE_LENGTH_SHARE) * fileLength ** FILE_LENGTH_SHARE);
}

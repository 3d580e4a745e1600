export interface IvfOptions {
  /** A model's vectors get an IVF index once it has this many (below, dense search is an exact scan). */
  ivfMinVectors?: number;
  /**
   * Lists of the IVF index (k-means centroids); 0 (the default): by the vectors it is trained on
   * (ivfListsFor), with ivfProbes scaled to them (ivfProbesFor).
   */
  ivfLists?: number;
  /** Lists scanned per query: with ivfLists given, as given; with ivfLists 0, per 256 lists (scaled: ivfProbesFor). */
  ivfProbes?: number;
  /** The centroids are retrained (and every vector reassigned) when the model's vectors grow this many times. */
  ivfRetrainFactor?: number;
  /** A list's persisted delta is folded into its base once it has more rows than this and an eighth of the list. */
  ivfCompactMinDelta?: number;
}

/** The defaults of the IVF options. */
export const DEFAULT_IVF_OPTIONS: Required<IvfOptions> = {
  ivfMinVectors: 20_000,
  ivfLists: 0,
  ivfProbes: 16,
  ivfRetrainFactor: 10,
  ivfCompactMinDelta: 256,
};

/**
 * The lists of an IVF trained on `n` vectors where ivfLists is 0: a power of two near n / 200, from 256 to
 * 4,096 (the first training, at 20k vectors, and a 100k store: 256; a store retrained at 200k: 1,024). Finer
 * lists reach the same recall scanning a smaller share of the vectors, which is what a query at 1M costs
 * (the int8 scan is memory-bound). Measured on real text (search-speed-real, 100k WordNet glosses by the
 * bundled model, GCIDE queries), recall@10 at 6.25% of the vectors scanned: 256 lists 0.952, 512 0.966,
 * 1,024 0.980; at ~4.7%: 512 lists 0.950, 1,024 0.970; at 3.1%: 512 0.912, 1,024 0.940.
 */
export function ivfListsFor(n: number): number {
  return Math.min(4096, Math.max(256, 2 ** Math.round(Math.log2(Math.max(1, n / 200)))));
}

/**
 * The lists scanned of an IVF of `nlist` lists where ivfLists is 0: `probes` (the count for 256 lists)
 * × (nlist / 256)^0.75: 16 of 256 (6.25%, recall@10 0.952 on real text), 27 of 512 (5.3%; 24 gave 0.950, 32
 * 0.966), 45 of 1,024 (4.4%; 32 gave 0.940, 48 0.970). Fewer vectors read than 6.25% at 1,024 lists, for a
 * recall at least as high.
 */
export function ivfProbesFor(probes: number, nlist: number): number {
  return Math.min(nlist, Math.max(1, Math.round(probes * Math.pow(nlist / 256, 0.75))));
}

/** The lists of an IVF trained on n vectors: ivfLists where given, else by n (ivfListsFor). */
export function listsFor(opts: Required<IvfOptions>, n: number): number {
  return opts.ivfLists > 0 ? opts.ivfLists : ivfListsFor(n);
}

/** The lists a query scans of an IVF of nlist lists: ivfProbes where ivfLists is given, else scaled to nlist (ivfProbesFor). */
export function probesOf(opts: Required<IvfOptions>, nlist: number): number {
  return opts.ivfLists > 0 ? opts.ivfProbes : ivfProbesFor(opts.ivfProbes, nlist);
}

import type { ChunkHit } from '@larder/chunk-index';

export type FusionMethod = 'relative' | 'rrf' | 'adaptive';

/**
 * `adaptive` fusion's shift: per query, the lexical weight drops by this much per unit of the dense
 * list's lead (its first cosine minus its second), so a query whose embedding singles out one chunk
 * leans on the dense list. Chosen on the tuning sets together (CISI, GCIDE, code, docs) with the bundled
 * model, whose cosines it is measured in (docs/benchmarks.md).
 */
export const ADAPTIVE_DENSE_LEAD_SLOPE = 1.5;

/** The lexical weight `adaptive` fusion gives one query: the configured weight less the slope × the dense list's lead, within [0, 1]. */
export function adaptiveLexicalWeight(dense: ChunkHit[], lexicalWeight: number): number {
  if (dense.length < 2) return lexicalWeight;
  let first = -Infinity;
  let second = -Infinity;
  for (const c of dense) {
    if (c.score > first) [first, second] = [c.score, first];
    else if (c.score > second) second = c.score;
  }
  return Math.min(1, Math.max(0, lexicalWeight - ADAPTIVE_DENSE_LEAD_SLOPE * (first - second)));
}

/**
 * Lead evidence: a fused chunk gains this share of the fused score of its file's first chunk (chunk 0),
 * where that chunk is a candidate too, and the sum is divided by 1 + the share (scores stay in [0, 1]): a
 * file whose opening matches the query is taken to be about it, and a file's chunks keep their order
 * among themselves. Files of one chunk all gain alike. Chosen on the tuning sets with the store search's
 * fusion (docs/benchmarks.md): manpages and docs gain, CISI's few two-chunk abstracts lose a little.
 */
export const LEAD_EVIDENCE = 0.5;

/** How two lists are fused: the method, the lexical list's weight and the lead evidence's share (default 0: none). */
export interface FusionOptions {
  method: FusionMethod;
  lexicalWeight: number;
  leadEvidence?: number;
}

export const chunkKey = (c: { storeId: string; fileId: string; chunkIndex: number }) =>
  `${c.storeId}\u0000${c.fileId}\u0000${c.chunkIndex}`;

/**
 * Fuses a lexical (BM25) and a dense (cosine) candidate list (chunks, or hits not read yet) into one score in [0, 1].
 * - `relative` (default): each list's scores are min-max normalised over the list, then combined
 *   with the weights (a list that is empty gives its weight to the other); a chunk found by only one
 *   retriever gets only that retriever's share.
 * - `adaptive`: `relative`, with the lexical weight set per query by `adaptiveLexicalWeight`.
 * - `rrf`: reciprocal rank fusion, Σ w/(60 + rank), divided by its largest possible value.
 * With `leadEvidence`, each chunk then gains that share of its file's first chunk's score (LEAD_EVIDENCE).
 * Ties are broken by lexical rank, then by position in the file.
 */
export function fuse<T extends ChunkHit>(lexical: T[], dense: T[], options: FusionOptions): T[] {
  return fused(lexical, dense, options).map((x) => ({ ...x.chunk, score: x.score }));
}

/** Where a fused hit came from: its best rank in the lexical and dense lists, and which of them found it. */
export interface FusedHit extends ChunkHit {
  firstStagePosition: number;
  firstStageSource: 'dense' | 'sparse' | 'both';
}

/**
 * `fuse` of two lists of hits, each fused hit with where it came from (its best rank in the two lists,
 * and which of them found it), in one pass over the lists: what `withFirstStage(fuse(…))` gives, as
 * plain hits of one shape.
 */
export function fuseHits(lexical: ChunkHit[], dense: ChunkHit[], options: FusionOptions): FusedHit[] {
  const entries = fused(lexical, dense, options, true);
  const out = new Array<FusedHit>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const { chunk: c, score, lexical: l, dense: d } = entries[i];
    out[i] = {
      storeId: c.storeId,
      fileId: c.fileId,
      chunkIndex: c.chunkIndex,
      score,
      ref: c.ref,
      firstStagePosition: Math.min(l, d),
      firstStageSource: l !== Infinity && d !== Infinity ? 'both' : l !== Infinity ? 'sparse' : 'dense',
    };
  }
  return out;
}

interface Fused<T> {
  chunk: T;
  score: number;
  /** Rank in the lexical list for the tie-break (MAX_SAFE_INTEGER when it is not in it). */
  lexRank: number;
  /** Ranks in the two lists (Infinity: not in it), with `ranks`. */
  lexical: number;
  dense: number;
}

const fileKey = (c: { storeId: string; fileId: string }) => `${c.storeId}\u0000${c.fileId}`;

/** The fusion, best first; with `ranks`, each entry's ranks in both lists, a list of weight 0 included. */
function fused<T extends ChunkHit>(lexical: T[], dense: T[], options: FusionOptions, ranks = false): Fused<T>[] {
  let wl = options.method === 'adaptive' ? adaptiveLexicalWeight(dense, options.lexicalWeight) : options.lexicalWeight;
  let wd = 1 - wl;
  if (!dense.length) [wl, wd] = [1, 0];
  else if (!lexical.length) [wl, wd] = [0, 1];
  const out = new Map<string, Fused<T>>();
  const add = (list: T[], weight: number, isLexical: boolean) => {
    if (!list.length || weight === 0) return;
    const scores = list.map((c) => c.score);
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    list.forEach((c, rank) => {
      const part =
        options.method === 'rrf'
          ? weight / (60 + rank + 1)
          : weight * (max === min ? 1 : (c.score - min) / (max - min));
      const k = chunkKey(c);
      const cur = out.get(k);
      if (cur) {
        cur.score += part;
        if (isLexical) cur.lexical = rank;
        else cur.dense = rank;
      } else
        out.set(k, {
          chunk: c,
          score: part,
          lexRank: isLexical ? rank : Number.MAX_SAFE_INTEGER,
          lexical: isLexical ? rank : Infinity,
          dense: isLexical ? Infinity : rank,
        });
    });
  };
  add(lexical, wl, true);
  add(dense, wd, false);
  if (ranks) {
    // a list of weight 0 adds no chunks, but a fused chunk it holds still came from it too
    const mark = (list: T[], isLexical: boolean) =>
      list.forEach((c, rank) => {
        const cur = out.get(chunkKey(c));
        if (cur && isLexical) cur.lexical = rank;
        else if (cur) cur.dense = rank;
      });
    if (wl === 0) mark(lexical, true);
    if (wd === 0) mark(dense, false);
  }
  const norm = options.method === 'rrf' ? (wl + wd) / 61 : 1;
  const entries = [...out.values()].map((x) => ({ ...x, score: Math.min(1, Math.max(0, x.score / norm)) }));
  const lead = options.leadEvidence ?? 0;
  if (lead > 0) {
    const leads = new Map<string, number>();
    for (const x of entries) if (x.chunk.chunkIndex === 0) leads.set(fileKey(x.chunk), x.score);
    for (const x of entries) x.score = (x.score + lead * (leads.get(fileKey(x.chunk)) ?? 0)) / (1 + lead);
  }
  return entries.sort((a, b) => b.score - a.score || a.lexRank - b.lexRank || a.chunk.chunkIndex - b.chunk.chunkIndex);
}

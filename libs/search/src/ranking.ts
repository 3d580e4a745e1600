import type { ChunkHit } from '@larder/chunk-index';

export type FusionMethod = 'relative' | 'rrf';

export const chunkKey = (c: { storeId: string; fileId: string; chunkIndex: number }) => `${c.storeId}\u0000${c.fileId}\u0000${c.chunkIndex}`;

/**
 * Fuses a lexical (BM25) and a dense (cosine) candidate list (chunks, or hits not read yet) into one score in [0, 1].
 * - `relative` (default): each list's scores are min-max normalised over the list, then combined
 *   with the weights (a list that is empty gives its weight to the other); a chunk found by only one
 *   retriever gets only that retriever's share.
 * - `rrf`: reciprocal rank fusion, Σ w/(60 + rank), divided by its largest possible value.
 * Ties are broken by lexical rank, then by position in the file.
 */
export function fuse<T extends ChunkHit>(lexical: T[], dense: T[], options: { method: FusionMethod; lexicalWeight: number }): T[] {
  let wl = options.lexicalWeight;
  let wd = 1 - wl;
  if (!dense.length) [wl, wd] = [1, 0];
  else if (!lexical.length) [wl, wd] = [0, 1];
  const out = new Map<string, { chunk: T; score: number; lexRank: number }>();
  const add = (list: T[], weight: number, lexical: boolean) => {
    if (!list.length || weight === 0) return;
    const scores = list.map((c) => c.score);
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    list.forEach((c, rank) => {
      const part = options.method === 'rrf' ? weight / (60 + rank + 1) : weight * (max === min ? 1 : (c.score - min) / (max - min));
      const k = chunkKey(c);
      const cur = out.get(k);
      if (cur) cur.score += part;
      else out.set(k, { chunk: c, score: part, lexRank: lexical ? rank : Number.MAX_SAFE_INTEGER });
    });
  };
  add(lexical, wl, true);
  add(dense, wd, false);
  const norm = options.method === 'rrf' ? (wl + wd) / 61 : 1;
  return [...out.values()]
    .map((x) => ({ ...x, score: Math.min(1, Math.max(0, x.score / norm)) }))
    .sort((a, b) => b.score - a.score || a.lexRank - b.lexRank || a.chunk.chunkIndex - b.chunk.chunkIndex)
    .map((x) => ({ ...x.chunk, score: x.score }));
}

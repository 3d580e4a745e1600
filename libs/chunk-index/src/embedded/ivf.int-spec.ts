import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ChunkIndexOp } from '../chunk-index.port';
import { normalize } from './ivf';
import { SqliteChunkIndex } from './sqlite.chunk-index';

/** Clustered unit vectors (deterministic), like real embeddings of related texts. */
function vectors(n: number, dims: number, seed: number): Float32Array[] {
  let a = seed;
  const rnd = () => ((a = (a * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const centers = Array.from({ length: 20 }, () => normalize(Float32Array.from({ length: dims }, rnd)));
  return Array.from({ length: n }, (_, i) => normalize(Float32Array.from(centers[i % 20], (x) => x + rnd() * 0.35)));
}

describe('embedded chunk index: IVF dense search on large stores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-ivf-'));
  const path = join(dir, 'chunks.sqlite');
  const opts = { ivfMinVectors: 1000, ivfLists: 32, ivfProbes: 6 };
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  const DIMS = 32;
  const generated = vectors(3100, DIMS, 7);
  const all = generated.slice(0, 3000);
  /** queries from the same distribution as the data (as real queries are), not in the index */
  const queryVectors = generated.slice(3000);
  const owner = new Map<string, Float32Array>(); // `${store}:${file}:${i}` -> vector
  let index: SqliteChunkIndex;
  let seq = 0n;
  const cp = () => ({ projection: 'ivf-test', version: 1, position: { commit: ++seq, prepare: seq } });

  const load = async (idx: SqliteChunkIndex, store: string, from: number, to: number) => {
    for (let f = from; f < to; f += 50) {
      const fileId = `00000000-0000-4000-8000-${String(f).padStart(12, '0')}`;
      const vs = all.slice(f, f + 50);
      vs.forEach((v, i) => owner.set(`${store}:${fileId}:${i}`, v));
      const ops: ChunkIndexOp[] = [
        {
          op: 'putFile',
          file: {
            storeId: store,
            fileId,
            organizationId: store,
            filename: `f${f}`,
            externalId: null,
            metadata: { odd: (f / 50) % 2 === 1 },
            generation: 1,
          },
        },
        {
          op: 'setChunks',
          storeId: store,
          fileId,
          generation: 1,
          chunks: vs.map((_, i) => ({
            chunkIndex: i,
            type: 'text' as const,
            text: `chunk ${f + i}`,
            offset: 0,
            mimeType: 'text/plain',
            generatedMetadata: null,
          })),
        },
        { op: 'setVectors', storeId: store, fileId, generation: 1, model: 'm', vectors: vs },
      ];
      await idx.write(ops, cp());
    }
  };

  const exact = (q: Float32Array, store: string, k: number, keep: (key: string) => boolean = () => true) =>
    [...owner]
      .filter(([key]) => key.startsWith(store) && keep(key))
      .map(([key, v]) => [key, v.reduce((s, x, i) => s + x * q[i], 0)] as const)
      .sort((x, y) => y[1] - x[1])
      .slice(0, k)
      .map(([key]) => key);

  beforeAll(async () => {
    index = new SqliteChunkIndex(path, opts);
    await index.setup();
    await load(index, A, 0, 2500);
    await load(index, B, 2500, 3000);
  });
  afterAll(async () => {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const recall = async (idx: SqliteChunkIndex, store: string) => {
    const queries = queryVectors.slice(0, 50);
    let hit = 0;
    for (const q of queries) {
      const got = (await idx.searchDense({ storeIds: [store], vector: q, topK: 10, model: 'm' })).map(
        (c) => `${c.storeId}:${c.fileId}:${c.chunkIndex}`,
      );
      const want = exact(q, store, 10);
      hit += got.filter((k) => want.includes(k)).length;
      expect(got.every((k) => k.startsWith(store))).toBe(true);
    }
    return hit / (queries.length * 10);
  };

  it('answers with recall@10 ≥ 0.95 against exact search, within the asked store, with exact cosine scores', async () => {
    expect(await recall(index, A)).toBeGreaterThanOrEqual(0.95);
    const q = queryVectors[60];
    const [top] = await index.searchDense({ storeIds: [A], vector: q, topK: 1, model: 'm' });
    const v = owner.get(`${A}:${top.fileId}:${top.chunkIndex}`)!;
    expect(top.score).toBeCloseTo(
      v.reduce((s, x, i) => s + x * q[i], 0),
      5,
    );
    // every answer of a larger top (its candidates re-scored from the stored vectors) has its exact cosine, best first
    const hits = await index.searchDense({ storeIds: [A], vector: q, topK: 50, model: 'm' });
    expect(hits).toHaveLength(50);
    for (const h of hits)
      expect(h.score).toBeCloseTo(
        owner.get(`${A}:${h.fileId}:${h.chunkIndex}`)!.reduce((s, x, i) => s + x * q[i], 0),
        5,
      );
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it('applies metadata filters and file exclusions to the candidates', async () => {
    const { parseFilters } = await import('@larder/kernel');
    const q = queryVectors[70];
    const hits = await index.hydrate(
      await index.searchDense({
        storeIds: [A],
        vector: q,
        topK: 10,
        model: 'm',
        filter: parseFilters({ key: 'odd', operator: 'eq', value: true }),
      }),
    );
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => (h.metadata as { odd: boolean }).odd)).toBe(true);
    const first = hits[0].fileId;
    const without = await index.searchDense({
      storeIds: [A],
      vector: q,
      topK: 10,
      model: 'm',
      fileIds: { exclude: [first] },
    });
    expect(without.some((h) => h.fileId === first)).toBe(false);
  });

  it('never returns deleted chunks; a reopened index and another process’s writes are seen', async () => {
    const q = queryVectors[60];
    const [top] = await index.searchDense({ storeIds: [A], vector: q, topK: 1, model: 'm' });
    await index.write([{ op: 'deleteFile', storeId: A, fileId: top.fileId }], cp());
    for (const k of [...owner.keys()]) if (k.startsWith(`${A}:${top.fileId}:`)) owner.delete(k);
    const after = await index.searchDense({ storeIds: [A], vector: q, topK: 20, model: 'm' });
    expect(after.some((h) => h.fileId === top.fileId)).toBe(false);

    const other = new SqliteChunkIndex(path, opts);
    await other.setup();
    expect(await recall(other, A)).toBeGreaterThanOrEqual(0.95);
    const [next] = await other.searchDense({ storeIds: [A], vector: q, topK: 1, model: 'm' });
    await other.write([{ op: 'deleteFile', storeId: A, fileId: next.fileId }], cp());
    await other.close();
    const seen = await index.searchDense({ storeIds: [A], vector: q, topK: 20, model: 'm' });
    expect(seen.some((h) => h.fileId === next.fileId)).toBe(false);
  });
});

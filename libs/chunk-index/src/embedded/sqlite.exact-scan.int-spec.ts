import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { seededRandom } from '@larder/kernel/testing/random';
import { newFileOps } from '../testing/file-ops';
import { normalize } from './ivf';
import { SqliteChunkIndex } from './sqlite.chunk-index';

/** The exact scans' vectors kept in memory (LARDER_SEARCH_EXACT_SCAN_CACHE_MB): bounded in bytes, reported, never stale. */
describe('SqliteChunkIndex: exact scans kept in memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-exact-scans-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const DIMS = 64;
  const store = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  let seq = 0n;
  const cp = () => ({ projection: 'exact-test', version: 1, position: { commit: ++seq, prepare: seq } });
  /** A unit vector pointing mostly along axis `axis`. */
  const vector = (axis: number, jitter: number) => {
    const v = new Float32Array(DIMS).map((_, i) => (i === axis % DIMS ? 1 : ((i * 7 + jitter) % 13) / 100));
    return v;
  };
  /** One file of `n` chunks in store `s`, chunk i along axis i. */
  const fileOps = (s: string, fileId: string, n: number) =>
    newFileOps(
      s,
      fileId,
      'm',
      Array.from({ length: n }, (_, i) => vector(i, n)),
    );
  const scans = async (index: SqliteChunkIndex) => (await index.cacheStats()).find((c) => c.cache === 'exact_scans');

  it('keeps the scans of the stores searched within its bound, the least recently searched dropped, and answers the same', async () => {
    // 200 vectors of 64 floats: 51,200 bytes of vectors and 40,000 of rows a store; room for two stores, not three
    const index = new SqliteChunkIndex(join(dir, 'bounded.sqlite'), { exactScanCacheBytes: 200_000 });
    try {
      await index.setup();
      for (const s of [1, 2, 3]) await index.write(fileOps(store(s), store(100 + s), 200), cp());
      const top = async (s: number) =>
        (await index.searchDense({ storeIds: [store(s)], vector: vector(7, 0), topK: 3, model: 'm' })).map(
          (c) => c.chunkIndex,
        );
      const first = await Promise.all([1, 2, 3].map(top));
      expect(first.map((t) => t[0])).toEqual([7, 7, 7]);
      const after = await scans(index);
      expect(after).toMatchObject({ cache: 'exact_scans', entries: 2, capacityBytes: 200_000 });
      expect(after!.bytes).toBeGreaterThan(0);
      expect(after!.bytes).toBeLessThanOrEqual(200_000);
      // answered from memory or read again, the same chunks
      expect(await Promise.all([1, 2, 3].map(top))).toEqual(first);
      expect((await scans(index))!.entries).toBe(2);

      // a write that changes a store's chunks is seen by its next scan
      await index.write(fileOps(store(1), store(201), 1), cp());
      const [found] = await index.searchDense({ storeIds: [store(1)], vector: vector(0, 1), topK: 1, model: 'm' });
      expect(found.fileId).toBe(store(201));
    } finally {
      await index.close();
    }
  });

  it('narrows a large scan by its int8 codes and answers as the float scan does, file filters included', async () => {
    const index = new SqliteChunkIndex(join(dir, 'codes.sqlite'));
    try {
      await index.setup();
      // 1,600 vectors in 8 files: enough for the codes (1,024 rows of a dimension)
      for (let f = 0; f < 8; f++) await index.write(fileOps(store(1), store(300 + f), 200), cp());
      const query = normalize(vector(5, 3).map((x, i) => x + ((i * 13) % 7) / 50));
      const hits = await index.searchDense({ storeIds: [store(1)], vector: query, topK: 20, model: 'm' });
      // the scan's vectors and rows (4 and 200 bytes), and a byte a component of its codes
      expect((await scans(index))!.bytes).toBeGreaterThan(1600 * 64 * 4 + 1600 * 200 + 1600 * 64);
      // the float answer: every chunk's cosine, best first, ties by write order
      const all: Array<{ file: string; chunk: number; score: number }> = [];
      for (let f = 0; f < 8; f++)
        for (let i = 0; i < 200; i++) {
          const v = normalize(vector(i, 200));
          all.push({ file: store(300 + f), chunk: i, score: v.reduce((s, x, j) => s + x * query[j], 0) });
        }
      const ranked = all.sort((a, b) => b.score - a.score);
      const expected = ranked.slice(0, 20);
      expect(hits.map((h) => [h.fileId, h.chunkIndex])).toEqual(expected.map((e) => [e.file, e.chunk]));
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i].score, 5));
      // a file filter is applied before the narrowing
      const only = await index.searchDense({
        storeIds: [store(1)],
        vector: query,
        topK: 5,
        model: 'm',
        fileIds: { include: [store(303)] },
      });
      expect(only.map((h) => [h.fileId, h.chunkIndex])).toEqual(
        ranked
          .filter((e) => e.file === store(303))
          .slice(0, 5)
          .map((e) => [e.file, e.chunk]),
      );
    } finally {
      await index.close();
    }
  });

  it('answers as the float scan does after every kind of write: files added, removed, re-added, vectors replaced in place', async () => {
    const index = new SqliteChunkIndex(join(dir, 'writes.sqlite'));
    const r = seededRandom(21);
    const random = (n: number) => Array.from({ length: n }, () => Float32Array.from({ length: DIMS }, () => r() - 0.5));
    /** What the index holds: each file's vectors. */
    const held = new Map<string, Float32Array[]>();
    const put = async (f: number, vectors: Float32Array[], generation = 1) => {
      const ops = newFileOps(store(1), store(500 + f), 'm', vectors).map((op) =>
        op.op === 'putFile' ? { ...op, file: { ...op.file, generation } } : { ...op, generation },
      );
      await index.write(ops, cp());
      held.set(store(500 + f), vectors);
    };
    const check = async () => {
      for (let t = 0; t < 4; t++) {
        const query = normalize(Float32Array.from({ length: DIMS }, () => r() - 0.5));
        const hits = await index.searchDense({ storeIds: [store(1)], vector: query, topK: 15, model: 'm' });
        const all = [...held].flatMap(([file, vs]) =>
          vs.map((v, chunk) => ({ file, chunk, score: normalize(v).reduce((s, x, j) => s + x * query[j], 0) })),
        );
        const expected = all.sort((a, b) => b.score - a.score).slice(0, 15);
        expect(hits.map((h) => [h.fileId, h.chunkIndex])).toEqual(expected.map((e) => [e.file, e.chunk]));
      }
    };
    try {
      await index.setup();
      // 1,500 vectors: the scan gets its codes
      for (let f = 0; f < 10; f++) await put(f, random(150));
      await check();
      await put(10, random(40)); // added
      await check();
      await index.write([{ op: 'deleteFile', storeId: store(1), fileId: store(503) }], cp()); // removed
      held.delete(store(503));
      await check();
      await put(4, random(90), 2); // re-added at a newer generation
      await check();
      // vectors replaced in place: the same chunks, other vectors
      const replaced = random(150);
      await index.write(
        [{ op: 'setVectors', storeId: store(1), fileId: store(507), generation: 1, model: 'm', vectors: replaced }],
        cp(),
      );
      held.set(store(507), replaced);
      await check();
      // many rows added: the codes are made again
      for (let f = 20; f < 30; f++) await put(f, random(60));
      await check();
    } finally {
      await index.close();
    }
  });

  it('does not keep a scan larger than its bound (0: none), and still answers', async () => {
    const index = new SqliteChunkIndex(join(dir, 'none.sqlite'), { exactScanCacheBytes: 0 });
    try {
      await index.setup();
      await index.write(fileOps(store(1), store(101), 50), cp());
      const [hit] = await index.searchDense({ storeIds: [store(1)], vector: vector(9, 0), topK: 1, model: 'm' });
      expect(hit.chunkIndex).toBe(9);
      expect(await scans(index)).toEqual({ cache: 'exact_scans', bytes: 0, entries: 0, capacityBytes: 0 });
    } finally {
      await index.close();
    }
  });
});

import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { chunkIndexContract } from '../testing/chunk-index.contract';
import { ChunkIndexOp, ChunkQuery } from '../chunk-index.port';
import { SqliteChunkIndex } from './sqlite.chunk-index';

const dir = mkdtempSync(join(tmpdir(), 'larder-chunk-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

chunkIndexContract('embedded (SQLite)', async () => new SqliteChunkIndex(join(dir, 'chunks.sqlite')));

describe('embedded exact scan kept in memory (stores below the IVF threshold)', () => {
  const v = (...xs: number[]) => Float32Array.from({ length: 8 }, (_, i) => xs[i] ?? 0);
  let seq = 0n;
  const cp = () => ({ projection: 'scan-cache', version: 1, position: { commit: ++seq, prepare: seq } });
  const file = (storeId: string, fileId: string, vectors: Float32Array[]): ChunkIndexOp[] => [
    {
      op: 'putFile',
      file: {
        storeId,
        fileId,
        organizationId: 'org',
        filename: `${fileId}.txt`,
        externalId: null,
        metadata: null,
        generation: 1,
      },
    },
    {
      op: 'setChunks',
      storeId,
      fileId,
      generation: 1,
      chunks: vectors.map((_, i) => ({
        chunkIndex: i,
        type: 'text' as const,
        text: `chunk ${i}`,
        offset: i,
        mimeType: 'text/plain',
        generatedMetadata: { type: 'text' },
      })),
    },
    { op: 'setVectors', storeId, fileId, generation: 1, model: 'm', vectors },
  ];
  const top = async (index: SqliteChunkIndex, q: Partial<ChunkQuery> = {}) =>
    (await index.searchDense({ storeIds: ['s'], topK: 10, vector: v(1, 0), model: 'm', ...q })).map(
      (c) => `${c.fileId}:${c.chunkIndex}`,
    );

  it('never answers from a stale copy: its own writes and deletions, and another connection’s commits, are seen at once', async () => {
    const path = join(dir, 'scan-cache.sqlite');
    const a = new SqliteChunkIndex(path);
    await a.setup();
    await a.write(file('s', 'f1', [v(1, 0), v(0, 1)]), cp());
    expect(await top(a)).toEqual(['f1:0', 'f1:1']);
    expect(await top(a)).toEqual(['f1:0', 'f1:1']); // answered from memory
    await a.write(file('s', 'f2', [v(0.9, 0.1)]), cp());
    expect(await top(a)).toEqual(['f1:0', 'f2:0', 'f1:1']);
    expect(await top(a, { fileIds: { include: ['f2'] } })).toEqual(['f2:0']);
    expect(await top(a, { fileIds: { exclude: ['f1'] } })).toEqual(['f2:0']);
    await a.write([{ op: 'deleteFile', storeId: 's', fileId: 'f1' }], cp());
    expect(await top(a)).toEqual(['f2:0']);
    // another connection (a second process, e.g. the CLI) writes to the same file
    const b = new SqliteChunkIndex(path);
    await b.setup();
    await b.write(file('s', 'f3', [v(1, 0.01)]), cp());
    await b.close();
    expect(await top(a)).toEqual(['f3:0', 'f2:0']);
    await a.close();
  });

  it('scores are the cosines (a zero vector 0), and a write of the checkpoint alone keeps them while a write of chunks is seen', async () => {
    const path = join(dir, 'scan-scores.sqlite');
    const a = new SqliteChunkIndex(path);
    await a.setup();
    await a.write(file('s', 'f1', [v(3, 4), v(0.9, 0.1), v()]), cp());
    const scores = async () =>
      Object.fromEntries(
        (await a.searchDense({ storeIds: ['s'], topK: 10, vector: v(2, 0), model: 'm' })).map((c) => [
          `${c.fileId}:${c.chunkIndex}`,
          c.score,
        ]),
      );
    const expected = { 'f1:0': 0.6, 'f1:1': 0.9 / Math.hypot(0.9, 0.1), 'f1:2': 0 };
    const check = (got: Record<string, number>, want: Record<string, number>) => {
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      for (const k of Object.keys(want)) expect(got[k]).toBeCloseTo(want[k], 6);
    };
    check(await scores(), expected);
    await a.write([], cp()); // a batch of events the index does not handle: only the checkpoint moves
    check(await scores(), expected);
    await a.write(file('s', 'f2', [v(0, 1)]), cp());
    check(await scores(), { ...expected, 'f2:0': 0 });
    await a.write([{ op: 'setChunks', storeId: 's', fileId: 'f1', generation: 1, chunks: [] }], cp());
    check(await scores(), { 'f2:0': 0 });
    await a.close();
  });
});

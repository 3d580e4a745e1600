import Database from 'better-sqlite3';
import { spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  CRASH_DIMS,
  CRASH_MODEL,
  CRASH_OPTIONS,
  CRASH_STORES,
  crashFileOps,
  crashRng,
  crashVector,
} from '../testing/ivf-crash.support';
import { prefetchIvf } from './ivf.prefetch';
import { SqliteChunkIndex } from './sqlite.chunk-index';

const dir = mkdtempSync(join(tmpdir(), 'larder-ivf-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = (c: { storeId: string; fileId: string; chunkIndex: number }) => `${c.storeId}:${c.fileId}:${c.chunkIndex}`;

/** Every committed vector of the file, read with a connection of its own (the exhaustive truth). */
function committed(path: string): Map<string, Float32Array> {
  const db = new Database(path, { readonly: true });
  try {
    const out = new Map<string, Float32Array>();
    for (const r of db
      .prepare(`SELECT store_id, file_id, chunk_index, vector FROM chunks WHERE vector IS NOT NULL AND model = ?`)
      .all(CRASH_MODEL) as Array<{
      store_id: string;
      file_id: string;
      chunk_index: number;
      vector: Buffer;
    }>) {
      out.set(
        `${r.store_id}:${r.file_id}:${r.chunk_index}`,
        new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)),
      );
    }
    return out;
  } finally {
    db.close();
  }
}

/**
 * Opens the file as a server start does and checks that the IVF (every list probed) answers what an
 * exhaustive scan of the committed vectors answers: the exact top 10 of each query, and, asked for as
 * many as there are, every committed vector of the stores and nothing else.
 */
async function expectExact(
  path: string,
  queries: Float32Array[],
  open?: SqliteChunkIndex | 'prefetch',
): Promise<SqliteChunkIndex['ivfLoad']> {
  const truth = committed(path);
  const prefetch = open === 'prefetch';
  if (open === 'prefetch') open = undefined;
  // a start reads the lists in a worker thread (ivf.prefetch.ts) while it loads its modules
  const index =
    open ??
    new SqliteChunkIndex(path, {
      readWorker: false,
      ...CRASH_OPTIONS,
      ivfPrefetch: prefetch ? prefetchIvf(path, 0) : null,
    });
  try {
    if (!open) {
      await index.setup();
      expect(index.ivfLoad.vectors).toBe(truth.size);
    }
    const load = { ...index.ivfLoad };
    for (const storeIds of [CRASH_STORES, [CRASH_STORES[0]]]) {
      const mine = [...truth].filter(([k]) => storeIds.some((s) => k.startsWith(`${s}:`)));
      expect(mine.length).toBeGreaterThanOrEqual(CRASH_OPTIONS.ivfMinVectors); // the IVF answers, not the exact scan
      for (const q of queries) {
        const want = mine
          .map(([k, v]) => [k, v.reduce((s, x, i) => s + x * q[i], 0)] as const)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10)
          .map(([k]) => k);
        const got = (await index.searchDense({ storeIds, vector: q, topK: 10, model: CRASH_MODEL })).map(key);
        expect(new Set(got)).toEqual(new Set(want));
      }
      const every = (
        await index.searchDense({ storeIds, vector: queries[0], topK: mine.length + 10, model: CRASH_MODEL })
      ).map(key);
      expect(every.length).toBe(mine.length);
      expect(new Set(every)).toEqual(new Set(mine.map(([k]) => k)));
    }
    return load;
  } finally {
    if (!open) await index.close();
  }
}

let seq = 0n;
const cp = () => ({ projection: 'persist', version: 1, position: { commit: ++seq, prepare: seq } });
async function addFiles(
  index: SqliteChunkIndex,
  r: () => number,
  storeId: string,
  files: number,
  per: number,
  prefix: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let f = 0; f < files; f++) {
    const fileId = `00000000-0000-4000-8000-${(prefix * 100_000 + f).toString(16).padStart(12, '0')}`;
    ids.push(fileId);
    const ops = crashFileOps(storeId, fileId, per, r);
    await index.write(ops, cp());
  }
  return ids;
}

describe('embedded chunk index: the IVF persisted in the file', () => {
  const r = crashRng(11);
  const queries = Array.from({ length: 8 }, () => crashVector(r, CRASH_DIMS));

  it('is read back at open (no vector read), equal to the lists it was written from, through deletions, re-vectoring and list rewrites', async () => {
    const path = join(dir, 'reopen.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS });
    await index.setup();
    const a = await addFiles(index, r, CRASH_STORES[0], 30, 20, 1);
    await addFiles(index, r, CRASH_STORES[1], 20, 20, 2);
    expect(await expectExact(path, queries)).toMatchObject({ from: 'persisted', vectors: 1000 });
    // deletions, re-vectored files and new generations: tombstones and codes in the delta, lists rewritten
    for (const fileId of a.slice(0, 5))
      await index.write([{ op: 'deleteFile', storeId: CRASH_STORES[0], fileId }], cp());
    for (const fileId of a.slice(5, 15)) {
      await index.write(
        [
          {
            op: 'setVectors',
            storeId: CRASH_STORES[0],
            fileId,
            generation: 1,
            model: CRASH_MODEL,
            vectors: Array.from({ length: 20 }, () => crashVector(r, CRASH_DIMS)),
          },
        ],
        cp(),
      );
    }
    await index.write(
      [
        {
          op: 'putFile',
          file: {
            storeId: CRASH_STORES[0],
            fileId: a[20],
            organizationId: CRASH_STORES[0],
            filename: 'x.txt',
            externalId: null,
            metadata: null,
            generation: 2,
          },
        },
        {
          op: 'setChunks',
          storeId: CRASH_STORES[0],
          fileId: a[20],
          generation: 2,
          chunks: [
            { chunkIndex: 0, type: 'text', text: 'one', offset: 0, mimeType: 'text/plain', generatedMetadata: null },
          ],
        },
        {
          op: 'setVectors',
          storeId: CRASH_STORES[0],
          fileId: a[20],
          generation: 2,
          model: CRASH_MODEL,
          vectors: [crashVector(r, CRASH_DIMS)],
        },
      ],
      cp(),
    );
    const db = new Database(path, { readonly: true });
    const delta = (db.prepare(`SELECT count(*) AS n FROM ivf_delta`).get() as { n: number }).n;
    const lists = (db.prepare(`SELECT count(*) AS n FROM ivf_lists`).get() as { n: number }).n;
    db.close();
    expect(lists).toBe(CRASH_OPTIONS.ivfLists);
    // 300 vectors re-written or removed: some lists were folded into new bases, each list keeps a bounded delta
    expect(delta).toBeGreaterThan(0);
    expect(delta).toBeLessThanOrEqual(CRASH_OPTIONS.ivfLists * (CRASH_OPTIONS.ivfCompactMinDelta + 1));
    expect(await expectExact(path, queries)).toMatchObject({ from: 'persisted', vectors: 1000 - 100 - 19 });
    // the writer's own lists, kept in step with its writes, answer alike
    await expectExact(path, queries, index);
    await index.close();
  });

  it('is read in a worker thread at a start, and taken only when the file has not changed since', async () => {
    const path = join(dir, 'prefetch.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS });
    await index.setup();
    const a = await addFiles(index, r, CRASH_STORES[0], 30, 20, 7);
    await addFiles(index, r, CRASH_STORES[1], 20, 20, 8);
    await index.write([{ op: 'deleteFile', storeId: CRASH_STORES[0], fileId: a[0] }], cp());
    await index.close();
    // unchanged since the worker began: its arrays are taken (tombstones and delta codes included)
    const taken = await expectExact(path, queries, 'prefetch');
    expect(taken).toMatchObject({ from: 'persisted', vectors: 980 });
    expect(taken.prefetched).not.toBeNull();
    // the lists built in the worker (shared memory) are this index's from then on: writes grow and rewrite them
    const started = new SqliteChunkIndex(path, {
      readWorker: false,
      ...CRASH_OPTIONS,
      ivfPrefetch: prefetchIvf(path, 0),
    });
    await started.setup();
    expect(started.ivfLoad.prefetched).not.toBeNull();
    await addFiles(started, r, CRASH_STORES[1], 20, 20, 9);
    for (const fileId of a.slice(2, 8))
      await started.write([{ op: 'deleteFile', storeId: CRASH_STORES[0], fileId }], cp());
    await expectExact(path, queries, started);
    await started.close();
    expect(await expectExact(path, queries, 'prefetch')).toMatchObject({ from: 'persisted', vectors: 980 + 400 - 120 });
    // a commit after the worker read (another connection): the index reads the lists itself, and sees it
    const pre = prefetchIvf(path, 0)!;
    await pre.done;
    const writer = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS });
    await writer.setup();
    await writer.write([{ op: 'deleteFile', storeId: CRASH_STORES[0], fileId: a[1] }], cp());
    const reader = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS, ivfPrefetch: pre });
    await reader.setup();
    expect(reader.ivfLoad).toMatchObject({ from: 'persisted', vectors: 1240, prefetched: null });
    await expectExact(path, queries, reader);
    await reader.close();
    await writer.close();
    // a file the worker cannot read as an index (no IVF tables yet): read here, as without a prefetch
    const bare = join(dir, 'bare.sqlite');
    new Database(bare).close();
    const unread = prefetchIvf(bare, 0)!;
    expect(await unread.done).toBeNull();
    const fresh = new SqliteChunkIndex(bare, { readWorker: false, ...CRASH_OPTIONS, ivfPrefetch: unread });
    await fresh.setup();
    expect(fresh.ivfLoad).toMatchObject({ from: 'none', vectors: 0, prefetched: null });
    await fresh.close();
  });

  it('is rebuilt from the vectors, once, for a file of a release that did not persist it', async () => {
    const path = join(dir, 'older.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS });
    await index.setup();
    await addFiles(index, r, CRASH_STORES[0], 20, 20, 3);
    await addFiles(index, r, CRASH_STORES[1], 20, 20, 4);
    await index.close();
    const db = new Database(path);
    db.exec(
      `DELETE FROM ivf_lists; DELETE FROM ivf_delta; DELETE FROM ivf_stores; UPDATE chunks SET list = NULL WHERE id % 3 = 0;`,
    );
    db.close();
    expect(await expectExact(path, queries)).toMatchObject({ from: 'vectors', vectors: 800 });
    expect(await expectExact(path, queries)).toMatchObject({ from: 'persisted', vectors: 800 });
  });

  it('answers exactly what an exhaustive scan of the committed chunks answers after a writer is killed (SIGKILL) at random points', async () => {
    const path = join(dir, 'crash.sqlite');
    // trained before the first kill: both stores above the IVF threshold
    const index = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS });
    await index.setup();
    await addFiles(index, r, CRASH_STORES[0], 20, 20, 5);
    await addFiles(index, r, CRASH_STORES[1], 20, 20, 6);
    await index.close();
    const kills = crashRng(Number(process.env.CRASH_SEED ?? Date.now() % 100_000));
    const rounds = Number(process.env.CRASH_ROUNDS ?? 6);
    let totalWrites = 0;
    for (let round = 0; round < rounds; round++) {
      const target = 3 + Math.floor(kills() * 60);
      const child = spawn(
        process.execPath,
        [
          '-r',
          join(__dirname, '..', '..', '..', 'kernel', 'src', 'testing', 'ts-register.js'),
          join(__dirname, '..', 'testing', 'ivf-crash.writer.ts'),
          path,
          String(Math.floor(kills() * 1e9)),
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let writes = 0;
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          writes += d
            .toString()
            .split('\n')
            .filter((l) => l === 'wrote').length;
          // killed after `target` commits and a random few milliseconds more: anywhere in the next write
          if (writes >= target && child.exitCode === null)
            setTimeout(() => (child.kill('SIGKILL'), resolve()), Math.floor(kills() * 8));
        });
        void exited.then((code) => (code === null ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`))));
      });
      await exited;
      totalWrites += writes;
      const load = await expectExact(path, queries, round % 2 ? 'prefetch' : undefined);
      expect(load.from).toBe('persisted');
      // the worker's read of the killed writer's file (its WAL recovered read-only) is taken, and exact
      if (round % 2) expect(load.prefetched).not.toBeNull();
    }
    expect(totalWrites).toBeGreaterThanOrEqual(rounds * 3);
    // the kills fell among delta writes and list rewrites alike: bases were rewritten on the way
    const db = new Database(path, { readonly: true });
    const rewritten = (db.prepare(`SELECT count(*) AS n FROM ivf_lists WHERE size > 0`).get() as { n: number }).n;
    db.close();
    expect(rewritten).toBeGreaterThan(0);
  }, 240_000);
});

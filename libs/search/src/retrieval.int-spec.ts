import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Embedder } from '@larder/ai';
import { ChunkIndexOp } from '@larder/chunk-index';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { parseFilters, timings, withTimings } from '@larder/kernel';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { Retrieval } from './retrieval';
import { seededRandom as rng } from '@larder/kernel/testing/random';

const DIMS = 16;
const MODEL = 'test-model';

const WORDS = [
  'jam',
  'brine',
  'pickle',
  'sugar',
  'lemon',
  'apricot',
  'cucumber',
  'salt',
  'vinegar',
  'pectin',
  'jar',
  'seal',
  'boil',
  'ferment',
  'dill',
  'garlic',
];

/** A query's vector: the same text always gets the same one. */
function vectorOf(text: string): Float32Array {
  let h = 0;
  for (const ch of text) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  const r = rng(h);
  return Float32Array.from({ length: DIMS }, () => r() * 2 - 1);
}

const embedder: Embedder = {
  model: MODEL,
  dimensions: DIMS,
  batchSize: 16,
  embed: async (texts) => texts.map(vectorOf),
  close: async () => undefined,
};

/**
 * The search endpoint's plain path (`retrieveHits`, then `hydrate` of the answer's hits) answers what
 * the whole-row path (`retrieve`, then the score threshold and top_k) answers: the same chunks, fields,
 * scores and first stages, on exact scans and on the IVF, with and without filters.
 */
describe('Retrieval: hits read after the fusion answer as whole candidate rows do', () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-retrieval-'));
  const cases: Array<[string, number]> = [
    ['exact scan', 100_000],
    ['IVF', 200],
  ];
  const storeA = '00000000-0000-4000-8000-0000000000a0';
  const storeB = '00000000-0000-4000-8000-0000000000b0';
  const stores: StoreRef[] = [{ id: storeA } as StoreRef, { id: storeB } as StoreRef];

  for (const [name, ivfMinVectors] of cases) {
    describe(name, () => {
      let index: SqliteChunkIndex;
      let retrieval: Retrieval;
      let seq = 0n;
      const cp = () => ({ projection: 'retrieval-test', version: 1, position: { commit: ++seq, prepare: seq } });

      beforeAll(async () => {
        index = new SqliteChunkIndex(join(dir, `${name.replace(/\W/g, '')}.sqlite`), {
          ivfMinVectors,
          ivfLists: 8,
          ivfProbes: 3,
        });
        await index.setup();
        const r = rng(11);
        const ops: ChunkIndexOp[] = [];
        for (let f = 0; f < 40; f++) {
          const storeId = f % 4 === 3 ? storeB : storeA;
          const fileId = `00000000-0000-4000-8000-${String(f).padStart(12, '0')}`;
          const chunks = Array.from({ length: 8 }, (_, i) => ({
            chunkIndex: i,
            type: 'text' as const,
            text: Array.from(
              { length: 6 + Math.floor(r() * 10) },
              () => WORDS[Math.floor(r() * r() * WORDS.length)],
            ).join(' '),
            offset: i * 50,
            mimeType: 'text/plain',
            generatedMetadata: { type: 'text', page: i },
          }));
          ops.push(
            {
              op: 'putFile',
              file: {
                storeId,
                fileId,
                organizationId: 'org',
                filename: `f${f}.txt`,
                externalId: f % 5 ? null : `ext-${f}`,
                metadata: { shelf: f % 3 },
                generation: 1,
              },
            },
            { op: 'setChunks', storeId, fileId, generation: 1, chunks },
            {
              op: 'setVectors',
              storeId,
              fileId,
              generation: 1,
              model: MODEL,
              vectors: chunks.map(() => Float32Array.from({ length: DIMS }, () => r() * 2 - 1)),
            },
          );
        }
        await index.write(ops, cp());
        retrieval = new Retrieval(
          index,
          embedder,
          { fusion: 'relative', lexicalWeight: 0.4, candidateFactor: 5, maxSortScan: 400 },
          null,
        );
      });
      afterAll(async () => {
        await index.close();
      });

      it('the same answers for queries, top_k, thresholds, filters and file selections', async () => {
        const r = rng(5);
        const filters = [
          null,
          parseFilters({ key: 'shelf', operator: 'eq', value: 1 }),
          parseFilters({ key: 'generated_metadata.page', operator: 'lt', value: 3 }),
        ];
        let compared = 0;
        for (let i = 0; i < 40; i++) {
          const query = Array.from(
            { length: 1 + Math.floor(r() * 4) },
            () => WORDS[Math.floor(r() * WORDS.length)],
          ).join(' ');
          const topK = [1, 3, 10, 25][i % 4];
          const threshold = [0, 0.3][Math.floor(i / 4) % 2];
          const params = {
            filter: filters[i % 3],
            fileIds: i % 7 === 0 ? { exclude: ['00000000-0000-4000-8000-000000000000'] } : null,
          };
          const candidates = Math.max(topK * 5, 50);
          const whole = (await retrieval.retrieve(stores, query, params, candidates))
            .filter((c) => c.score >= threshold)
            .slice(0, topK);
          const hits = (await retrieval.retrieveHits(stores, query, params, candidates)).filter(
            (c) => c.score >= threshold,
          );
          const read = await retrieval.hydrate(hits, topK);
          expect(read).toEqual(whole);
          compared += whole.length;
        }
        expect(compared).toBeGreaterThan(100);
      });

      it('a hit whose chunk is deleted before it is read is passed over, and the next hit takes its place', async () => {
        const hits = await retrieval.retrieveHits(stores, 'jam sugar lemon', { filter: null, fileIds: null }, 50);
        expect(hits.length).toBeGreaterThan(6);
        const gone = hits[1];
        await index.write([{ op: 'deleteFile', storeId: gone.storeId, fileId: gone.fileId }], cp());
        const { read, steps } = await withTimings(async () => ({
          read: await retrieval.hydrate(hits, 5),
          steps: timings(),
        }));
        const kept = hits.filter((h) => h.fileId !== gone.fileId).slice(0, 5);
        expect(read.map((c) => [c.fileId, c.chunkIndex, c.score, c.firstStageSource])).toEqual(
          kept.map((h) => [h.fileId, h.chunkIndex, h.score, h.firstStageSource]),
        );
        expect(read.every((c) => typeof c.text === 'string' && c.text.length > 0 && c.filename.endsWith('.txt'))).toBe(
          true,
        );
        expect(steps.hydrate).toBeGreaterThanOrEqual(0);
      });
    });
  }

  afterAll(() => rmSync(dir, { recursive: true, force: true }));
});

/** The cache of query embeddings is bounded by bytes (LARDER_SEARCH_QUERY_CACHE_MB): the least recently used go first. */
describe('Retrieval: the query embedding cache', () => {
  const calls: string[] = [];
  const counting: Embedder = { ...embedder, embed: async (texts) => (calls.push(...texts), texts.map(vectorOf)) };
  /** What one query takes in the cache: its vector, its key (model and query, UTF-16) and ~200 bytes of objects. */
  const entry = (q: string) => DIMS * 4 + (MODEL.length + 1 + q.length) * 2 + 200;
  const make = (queryCacheBytes: number) =>
    new Retrieval(
      null as never, // embedQuery reads no index
      counting,
      { fusion: 'relative', lexicalWeight: 0.4, candidateFactor: 5, maxSortScan: 400, queryCacheBytes },
      null,
    );

  beforeEach(() => (calls.length = 0));

  it('keeps as many queries as fit its bytes, forgets the least recently used, and reports what it holds', async () => {
    const retrieval = make(3 * entry('q1'));
    const first = retrieval.embedQuery('q1');
    await retrieval.embedQuery('q2');
    await retrieval.embedQuery('q3');
    expect(retrieval.embedQuery('q1')).toBe(first); // kept, and now the most recently used
    await retrieval.embedQuery('q4'); // q2 goes
    expect(retrieval.stats()).toEqual({
      queryEmbeddings: 3,
      queryEmbeddingBytes: 3 * entry('q1'),
      queryEmbeddingCapacityBytes: 3 * entry('q1'),
    });
    await retrieval.embedQuery('q3');
    await retrieval.embedQuery('q2');
    expect(calls).toEqual(['q1', 'q2', 'q3', 'q4', 'q2']);
    expect(Array.from((await retrieval.embedQuery('q1'))!)).toEqual(Array.from(vectorOf('q1')));
  });

  it('keeps nothing at 0 bytes, nor a query larger than its bound', async () => {
    const none = make(0);
    await none.embedQuery('q1');
    await none.embedQuery('q1');
    expect(none.stats().queryEmbeddings).toBe(0);
    const small = make(entry('q1'));
    const long = 'x'.repeat(100);
    await small.embedQuery(long);
    await small.embedQuery(long);
    expect(small.stats()).toMatchObject({ queryEmbeddings: 0, queryEmbeddingBytes: 0 });
    expect(calls).toEqual(['q1', 'q1', long, long]);
  });
});

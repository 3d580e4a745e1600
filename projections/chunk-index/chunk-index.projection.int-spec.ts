import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { RecordedEvent } from '@larder/kernel';
import { TestEventLog } from '@larder/kernel/testing';
import { ChunkArtifactEntry, ChunkIndex, writeChunksArtifact, writeVectorsArtifact } from '@larder/chunk-index';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { LocalDiskBlobStorage } from '@larder/blob-storage/local-disk/local-disk.blob-storage';
import { StoreCommand, storeDecider } from '@larder/stores/store.aggregate';
import { StoreFileCommand, storeFileDecider } from '@larder/stores/store-file.aggregate';
import { storeFileStream, storeStream } from '@larder/stores/streams';
import { StoreFileAdded } from '@larder/stores/events';
import { ChunkIndexProjection } from './chunk-index.projection';

const ORG = '11111111-1111-4111-8111-111111111111';
const store = (n: number) => `5704e000-0000-4000-8000-00000000000${n}`;
const file = (n: number) => `f11e0000-0000-4000-8000-00000000000${n}`;
const STORES = [1, 2, 3].map(store);
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const MODEL = 'test-model';

const entry = (i: number, text: string): ChunkArtifactEntry => ({
  chunkIndex: i,
  text,
  embedText: text,
  offset: i * 100,
  tokens: 5,
  mimeType: 'text/markdown',
  generatedMetadata: { type: 'text', page: i + 1 },
});
const unit = (...xs: number[]) => Float32Array.from([...xs, ...Array(4 - xs.length).fill(0)]);
/** Artifacts in blob storage, as the ingestion reactor leaves them. */
const ARTIFACTS = {
  jam: {
    chunks: 'artifacts/chunks/jam.json',
    vectors: 'artifacts/vectors/jam.f32',
    entries: [entry(0, 'Strawberry jam needs sugar.'), entry(1, 'Apricots keep for a year.')],
    vecs: [unit(1), unit(0, 1)],
  },
  pickles: {
    chunks: 'artifacts/chunks/pickles.json',
    vectors: 'artifacts/vectors/pickles.f32',
    entries: [entry(0, 'Cucumbers ferment in brine.')],
    vecs: [unit(0, 0, 1)],
  },
  jam2: {
    chunks: 'artifacts/chunks/jam2.json',
    vectors: 'artifacts/vectors/jam2.f32',
    entries: [entry(0, 'Jam, second edition.')],
    vecs: [unit(0, 0, 0, 1)],
  },
};
type Artifact = (typeof ARTIFACTS)[keyof typeof ARTIFACTS];

type Cmd<C> = C extends { now: Date } ? Omit<C, 'now'> : never;
class History {
  readonly log = new TestEventLog();
  private clock = 0;
  store(c: Cmd<StoreCommand>) {
    this.log.decide(storeDecider, storeStream(c.storeId), { ...c, now: t(++this.clock) }, { orgId: ORG });
  }
  file(c: Cmd<StoreFileCommand>) {
    this.log.decide(
      storeFileDecider,
      storeFileStream(c.storeId, c.fileId),
      { ...c, now: t(++this.clock) },
      { orgId: ORG },
    );
  }
  add(s: number, f: number, o: { metadata?: unknown; copiedFrom?: StoreFileAdded['data']['copiedFrom'] } = {}) {
    this.file({
      type: 'AddStoreFile',
      storeId: store(s),
      organizationId: ORG,
      fileId: file(f),
      filename: `f${f}.md`,
      mimeType: 'text/markdown',
      bytes: 10,
      sha256: `h${f}`,
      blobKey: `b${f}`,
      fileVersion: 1,
      metadata: o.metadata ?? null,
      externalId: `ext-${f}`,
      parsingStrategy: 'fast',
      contextualization: false,
      ...(o.copiedFrom ? { copiedFrom: o.copiedFrom } : {}),
    });
  }
  ingest(s: number, f: number, a: Artifact, o: { generation?: number; embed?: boolean } = {}) {
    const ids = {
      storeId: store(s),
      organizationId: ORG,
      fileId: file(f),
      generation: o.generation ?? 1,
      workerId: 'w',
    };
    this.file({ type: 'StartIngestion', ...ids, leaseMs: 600_000 });
    this.file({
      type: 'RecordParsed',
      ...ids,
      chunksKey: a.chunks,
      chunkCount: a.entries.length,
      usageTokens: 10,
      parseMs: 1,
    });
    if (o.embed === false) return;
    this.file({
      type: 'RecordIngested',
      ...ids,
      filename: `f${f}.md`,
      chunksKey: a.chunks,
      vectorsKey: a.vectors,
      model: MODEL,
      dimensions: 4,
      chunkCount: a.entries.length,
      usageTokens: 10,
      mode: 'fast',
      contextualization: false,
      queueMs: 0,
      ingestionMs: 0,
      totalMs: 0,
    });
  }
}

/** Everything the index holds for the given stores: files, their chunks (with the model once embedded), counts. */
async function snapshot(index: ChunkIndex) {
  const files = await index.listFiles(STORES, 1000);
  const chunks: Record<string, unknown> = {};
  for (const f of files) chunks[`${f.storeId}/${f.fileId}`] = await index.getChunks(f.storeId, f.fileId);
  const counts = Object.fromEntries(await Promise.all(STORES.map(async (s) => [s, await index.count(s)])));
  return { files, chunks, counts };
}

describe('chunk-index projection (embedded SQLite index, local-disk blobs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-chunk-index-projection-'));
  const blobs = new LocalDiskBlobStorage(join(dir, 'blobs'));
  const indexes: ChunkIndex[] = [];
  const freshIndex = async () => {
    const index = new SqliteChunkIndex(':memory:', { readWorker: false });
    indexes.push(index);
    const projection = new ChunkIndexProjection(index, blobs);
    await projection.setup();
    return { index, projection };
  };
  /** As the runner does: the handled events of each batch, with the batch's last position. */
  const applyInBatches = async (projection: ChunkIndexProjection, events: RecordedEvent[], size = 4) => {
    for (let i = 0; i < events.length; i += size) {
      const batch = events.slice(i, i + size);
      await projection.applyBatch(
        batch.filter((e) => (projection.handles as readonly string[]).includes(e.type)),
        batch[batch.length - 1].position,
      );
    }
  };

  beforeAll(async () => {
    for (const a of Object.values(ARTIFACTS)) {
      await writeChunksArtifact(blobs, a.chunks, { format: 1, chunks: a.entries });
      await writeVectorsArtifact(blobs, a.vectors, MODEL, a.vecs);
    }
  });
  afterAll(async () => {
    for (const i of indexes) await i.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies chunks then vectors from the artifacts, follows metadata, removals, re-ingestion, copies and store deletion; idempotent and replayable', async () => {
    const h = new History();
    h.add(1, 1, { metadata: { lang: 'en' } });
    h.ingest(1, 1, ARTIFACTS.jam);
    h.file({
      type: 'UpdateStoreFileMetadata',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(1),
      metadata: { lang: 'de' },
    });
    h.add(1, 2);
    h.ingest(1, 2, ARTIFACTS.pickles, { embed: false }); // parsed: searchable lexically, not yet embedded
    h.add(1, 3);
    h.ingest(1, 3, ARTIFACTS.pickles);
    h.file({ type: 'RemoveStoreFile', storeId: store(1), organizationId: ORG, fileId: file(3), reason: 'deleted' });
    h.add(1, 4);
    h.ingest(1, 4, ARTIFACTS.jam);
    h.file({
      type: 'ReingestStoreFile',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(4),
      filename: 'f4-renamed.md',
      externalId: 'ext-4',
      metadata: { v: 2 },
      billable: true,
    });
    h.ingest(1, 4, ARTIFACTS.jam2, { generation: 2 });
    h.add(2, 1, {
      metadata: { lang: 'de' },
      copiedFrom: {
        storeId: store(1),
        chunksKey: ARTIFACTS.jam.chunks,
        vectorsKey: ARTIFACTS.jam.vectors,
        model: MODEL,
        chunkCount: 2,
        usageTokens: 10,
      },
    });
    h.store({
      type: 'CreateStore',
      storeId: store(3),
      organizationId: ORG,
      name: 'doomed',
      description: null,
      isPublic: false,
      license: null,
      metadata: null,
      config: { contextualization: false, save_content: true },
      expiresAfter: null,
    });
    h.add(3, 5);
    h.ingest(3, 5, ARTIFACTS.pickles);
    h.store({ type: 'DeleteStore', storeId: store(3), organizationId: ORG });
    const events = h.log.events;
    const last = events[events.length - 1].position;

    const { index, projection } = await freshIndex();
    await applyInBatches(projection, events);
    expect(await projection.readCheckpoint()).toEqual(last);
    const once = await snapshot(index);

    const file1 = {
      storeId: store(1),
      fileId: file(1),
      organizationId: ORG,
      filename: 'f1.md',
      externalId: 'ext-1',
      metadata: { lang: 'de' },
      generation: 1,
    };
    expect(once.files).toEqual([
      file1,
      { ...file1, fileId: file(2), filename: 'f2.md', externalId: 'ext-2', metadata: null },
      { ...file1, fileId: file(4), filename: 'f4-renamed.md', externalId: 'ext-4', metadata: { v: 2 }, generation: 2 },
      { ...file1, storeId: store(2) },
    ]);
    const chunk = (s: number, f: number, e: ChunkArtifactEntry, model: string | null) => ({
      storeId: store(s),
      fileId: file(f),
      chunkIndex: e.chunkIndex,
      type: 'text',
      text: e.text,
      offset: e.offset,
      mimeType: e.mimeType,
      generatedMetadata: e.generatedMetadata,
      model,
    });
    expect(once.chunks).toEqual({
      [`${store(1)}/${file(1)}`]: ARTIFACTS.jam.entries.map((e) => chunk(1, 1, e, MODEL)),
      [`${store(1)}/${file(2)}`]: ARTIFACTS.pickles.entries.map((e) => chunk(1, 2, e, null)),
      [`${store(1)}/${file(4)}`]: ARTIFACTS.jam2.entries.map((e) => chunk(1, 4, e, MODEL)),
      [`${store(2)}/${file(1)}`]: ARTIFACTS.jam.entries.map((e) => chunk(2, 1, e, MODEL)),
    });
    expect(once.counts).toEqual({
      [store(1)]: { files: 3, chunks: 4, vectors: 3 },
      [store(2)]: { files: 1, chunks: 2, vectors: 2 },
      [store(3)]: { files: 0, chunks: 0, vectors: 0 },
    });
    // the vectors are the artifact's, on the right chunks
    const dense = await index.searchDense({
      storeIds: [store(1), store(2)],
      vector: unit(0, 1),
      model: MODEL,
      topK: 1,
    });
    expect(dense.map((c) => [c.storeId, c.fileId, c.chunkIndex])).toEqual([[expect.any(String), file(1), 1]]);
    const lexical = await index.searchLexical({ storeIds: [store(1)], text: 'cucumbers', topK: 5 });
    expect(lexical.map((c) => c.fileId)).toEqual([file(2)]);

    // idempotent: the whole log again on top, and each event twice in a fresh index
    await applyInBatches(projection, events, 5);
    expect({ afterReapplyingTheLog: await snapshot(index) }).toEqual({ afterReapplyingTheLog: once });
    const twice = await freshIndex();
    await applyInBatches(
      twice.projection,
      events.flatMap((e) => [e, e]),
    );
    expect({ afterEachEventTwice: await snapshot(twice.index) }).toEqual({ afterEachEventTwice: once });

    // replay: reset empties the index and the checkpoint; the log alone rebuilds the same state
    await projection.reset();
    expect(await projection.readCheckpoint()).toEqual({ commit: 0n, prepare: 0n });
    expect(await index.count()).toEqual({ files: 0, chunks: 0, vectors: 0 });
    await applyInBatches(projection, events, 1000);
    expect(await snapshot(index)).toEqual(once);
  });

  it('a cancelled ingestion leaves the file without chunks; attached again, it is indexed anew', async () => {
    const h = new History();
    h.add(1, 6);
    h.ingest(1, 6, ARTIFACTS.pickles, { embed: false }); // parsed: its chunks are in the index
    h.file({ type: 'CancelStoreFileIngestion', storeId: store(1), organizationId: ORG, fileId: file(6) });
    const { index, projection } = await freshIndex();
    await applyInBatches(projection, h.log.events);
    expect((await index.listFiles([store(1)], 10)).map((f) => f.fileId)).toEqual([file(6)]);
    expect(await index.getChunks(store(1), file(6))).toEqual([]);
    expect(await index.searchLexical({ storeIds: [store(1)], text: 'cucumbers', topK: 5 })).toEqual([]);

    h.file({ type: 'RemoveStoreFile', storeId: store(1), organizationId: ORG, fileId: file(6), reason: 'overwritten' });
    h.add(1, 6);
    h.ingest(1, 6, ARTIFACTS.pickles, { generation: 2 });
    await applyInBatches(projection, h.log.events.slice(-6));
    expect(
      (await index.searchLexical({ storeIds: [store(1)], text: 'cucumbers', topK: 5 })).map((c) => c.fileId),
    ).toEqual([file(6)]);
  });
});

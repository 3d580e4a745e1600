import { projectionTestDatabase, Row, TestEventLog } from '@larder/kernel/testing';
import { StoreCommand, storeDecider } from '@larder/stores/store.aggregate';
import { StoreFileCommand, storeFileDecider } from '@larder/stores/store-file.aggregate';
import { storeFileBatchStream, storeFileStream, storeStream } from '@larder/stores/streams';
import { StoreFileBatchCommand, storeFileBatchDecider } from '@larder/stores/store-file-batch.aggregate';
import { StoreFileAdded } from '@larder/stores/events';
import { StoresProjection } from './stores.projection';
import { STORE_FILE_BATCHES_TABLE, STORE_FILES_TABLE, STORES_TABLE } from './stores.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const store = (n: number) => `5704e000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
const file = (n: number) => `f11e0000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const config = { contextualization: false, save_content: true };

type Cmd<C> = C extends { now: Date } ? Omit<C, 'now'> : never;

/** A history written through the store and store-file deciders, as the writers and the ingestion worker do. */
class History {
  readonly log = new TestEventLog();
  private clock = 0;
  private now = () => t(++this.clock);

  store(c: Cmd<StoreCommand>) {
    return this.log.decide(
      storeDecider,
      storeStream(c.storeId),
      { ...c, now: this.now() },
      { orgId: c.organizationId, actor: 'key' },
    );
  }
  createStore(n: number, name: string, organizationId = ORG) {
    return this.store({
      type: 'CreateStore',
      storeId: store(n),
      organizationId,
      name,
      description: null,
      isPublic: false,
      license: null,
      metadata: null,
      config,
      expiresAfter: null,
    });
  }
  batch(c: Cmd<StoreFileBatchCommand>) {
    return this.log.decide(
      storeFileBatchDecider,
      storeFileBatchStream(c.batchId),
      { ...c, now: this.now() },
      { orgId: c.organizationId, actor: 'key' },
    );
  }
  file(c: Cmd<StoreFileCommand>) {
    return this.log.decide(
      storeFileDecider,
      storeFileStream(c.storeId, c.fileId),
      { ...c, now: this.now() },
      { orgId: c.organizationId, actor: 'key' },
    );
  }
  addFile(
    s: number,
    f: number,
    o: {
      organizationId?: string;
      version?: number;
      externalId?: string | null;
      copiedFrom?: StoreFileAdded['data']['copiedFrom'];
    } = {},
  ) {
    const v = o.version ?? 1;
    return this.file({
      type: 'AddStoreFile',
      storeId: store(s),
      organizationId: o.organizationId ?? ORG,
      fileId: file(f),
      filename: `doc${f}.md`,
      mimeType: 'text/markdown',
      bytes: 1000 * f + v,
      sha256: `sha-${f}-${v}`,
      blobKey: `files/${f}/${v}`,
      fileVersion: v,
      metadata: { n: f },
      externalId: o.externalId ?? null,
      parsingStrategy: 'fast',
      contextualization: false,
      ...(o.copiedFrom ? { copiedFrom: o.copiedFrom } : {}),
    });
  }
  ingest(s: number, f: number, generation = 1) {
    const ids = { storeId: store(s), organizationId: ORG, fileId: file(f), generation, workerId: 'w1' };
    this.file({ type: 'StartIngestion', ...ids, leaseMs: 600_000 });
    this.file({ type: 'RecordParsed', ...ids, chunksKey: `chunks/${f}`, chunkCount: 4, usageTokens: 90, parseMs: 3 });
    this.file({
      type: 'RecordIngested',
      ...ids,
      filename: `doc${f}.md`,
      chunksKey: `chunks/${f}`,
      vectorsKey: `vectors/${f}`,
      model: 'use-lite',
      dimensions: 512,
      chunkCount: 4,
      usageTokens: 90,
      mode: 'fast',
      contextualization: false,
      queueMs: 1,
      ingestionMs: 2,
      totalMs: 3,
    });
  }
}

const byId = (rows: Row[], id: string) => rows.find((r) => r.id === id);
const fileRow = (rows: Row[], s: number, f: number) =>
  rows.find((r) => r.store_id === store(s) && r.file_id === file(f));

describe('stores projection', () => {
  const pg = projectionTestDatabase();

  it('stores: created, updated, expired and revived, deleted with their files, copied (finished and failed)', async () => {
    const h = new History();
    h.createStore(1, 'handbook'); // t1
    h.store({
      type: 'UpdateStore',
      storeId: store(1),
      organizationId: ORG,
      name: 'manual',
      description: 'how we work',
      metadata: { team: 'ops' },
      isPublic: true,
      license: 'MIT',
    }); // t2
    h.createStore(2, 'archive'); // t3
    h.store({
      type: 'UpdateStore',
      storeId: store(2),
      organizationId: ORG,
      expiresAfter: { anchor: 'last_active_at', days: 7 },
    }); // t4
    h.store({ type: 'ExpireStore', storeId: store(2), organizationId: ORG }); // t5
    h.createStore(3, 'scratch'); // t6
    h.addFile(3, 1); // t7
    h.store({ type: 'DeleteStore', storeId: store(3), organizationId: ORG }); // t8
    h.createStore(4, 'manual-copy'); // t9
    h.store({ type: 'StartCopy', storeId: store(1), organizationId: ORG, role: 'source', peerStoreId: store(4) }); // t10
    h.store({ type: 'StartCopy', storeId: store(4), organizationId: ORG, role: 'target', peerStoreId: store(1) }); // t11
    h.store({
      type: 'FinishCopy',
      storeId: store(4),
      organizationId: ORG,
      role: 'target',
      peerStoreId: store(1),
      error: null,
    }); // t12
    h.store({
      type: 'FinishCopy',
      storeId: store(1),
      organizationId: ORG,
      role: 'source',
      peerStoreId: store(4),
      error: null,
    }); // t13
    h.createStore(5, 'failed-copy'); // t14
    h.store({ type: 'StartCopy', storeId: store(5), organizationId: ORG, role: 'target', peerStoreId: store(1) }); // t15
    h.store({
      type: 'FinishCopy',
      storeId: store(5),
      organizationId: ORG,
      role: 'target',
      peerStoreId: store(1),
      error: 'blob missing',
    }); // t16
    h.createStore(6, 'handbook', OTHER_ORG); // t17: same name, other organization
    h.store({ type: 'UpdateStore', storeId: store(2), organizationId: ORG, description: 'revived' }); // t18: activity revives an expired store

    const rows = await pg.project(new StoresProjection(), h.log.events);
    const stores = rows[STORES_TABLE];
    expect(stores.map((r) => r.id)).toEqual([store(1), store(2), store(4), store(5), store(6)]);
    expect(byId(stores, store(1))).toEqual({
      id: store(1),
      organization_id: ORG,
      name: 'manual',
      display_name: null,
      description: 'how we work',
      is_public: true,
      license: 'MIT',
      metadata: { team: 'ops' },
      config,
      expires_after: null,
      status: 'completed',
      copy_state: null,
      created_at: t(1),
      updated_at: t(13),
      last_active_at: t(13),
      revision: '3',
      bucket_id: null,
    });
    expect(byId(stores, store(2))).toMatchObject({
      status: 'completed',
      description: 'revived',
      expires_after: { anchor: 'last_active_at', days: 7 },
      updated_at: t(18),
      last_active_at: t(18),
      revision: '3',
    });
    expect(byId(stores, store(4))).toMatchObject({ status: 'completed', copy_state: null, last_active_at: t(12) });
    expect(byId(stores, store(5))).toMatchObject({
      status: 'failed',
      copy_state: {
        role: 'target',
        status: 'failed',
        peer_store_id: store(1),
        error: 'blob missing',
        started_at: t(15).toISOString(),
      },
    });
    expect(byId(stores, store(6))).toMatchObject({ organization_id: OTHER_ORG, name: 'handbook' });
    expect(rows[STORE_FILES_TABLE]).toEqual([]); // store 3's file went with it
  });

  it('an expired store and a copy in progress show their status', async () => {
    const h = new History();
    h.createStore(1, 'a');
    h.store({ type: 'ExpireStore', storeId: store(1), organizationId: ORG });
    h.createStore(2, 'b');
    h.store({ type: 'StartCopy', storeId: store(2), organizationId: ORG, role: 'target', peerStoreId: store(1) });
    const rows = (await pg.project(new StoresProjection(), h.log.events))[STORES_TABLE];
    expect(byId(rows, store(1))).toMatchObject({ status: 'expired', updated_at: t(2), last_active_at: t(1) });
    expect(byId(rows, store(2))).toMatchObject({
      status: 'in_progress',
      copy_state: {
        role: 'target',
        status: 'in_progress',
        peer_store_id: store(1),
        started_at: t(4).toISOString(),
        error: null,
      },
    });
  });

  it('store files: ingestion from pending to completed, retries, failure, metadata, removal, re-adding, re-ingestion and copies', async () => {
    const h = new History();
    h.createStore(1, 'handbook'); // t1
    h.addFile(1, 1, { externalId: 'ext-1' }); // t2
    h.ingest(1, 1); // t3 started, t4 parsed, t5 ingested
    h.addFile(1, 2); // t6
    const f2 = { storeId: store(1), organizationId: ORG, fileId: file(2), generation: 1, workerId: 'w1' };
    h.file({ type: 'StartIngestion', ...f2, leaseMs: 600_000 }); // t7
    h.file({
      type: 'RecordIngestionFailed',
      ...f2,
      error: { message: 'timeout', code: 'embedding_unavailable' },
      retryAt: t(100),
    }); // t8
    h.addFile(1, 3); // t9
    const f3 = { storeId: store(1), organizationId: ORG, fileId: file(3), generation: 1, workerId: 'w1' };
    h.file({ type: 'StartIngestion', ...f3, leaseMs: 600_000 }); // t10
    h.file({
      type: 'RecordIngestionFailed',
      ...f3,
      error: { message: 'not a PDF', code: 'parse_error' },
      retryAt: null,
    }); // t11
    h.addFile(1, 4); // t12
    h.file({
      type: 'UpdateStoreFileMetadata',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(4),
      metadata: { n: 4, lang: 'de' },
    }); // t13
    h.addFile(1, 5); // t14
    h.file({ type: 'RemoveStoreFile', storeId: store(1), organizationId: ORG, fileId: file(5), reason: 'deleted' }); // t15
    h.addFile(1, 6); // t16
    h.ingest(1, 6); // t17-19
    h.file({ type: 'RemoveStoreFile', storeId: store(1), organizationId: ORG, fileId: file(6), reason: 'overwritten' }); // t20
    h.addFile(1, 6, { version: 2 }); // t21: the file's new content, generation 2
    h.file({
      type: 'ReingestStoreFile',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(1),
      filename: 'doc1.md',
      externalId: 'ext-1',
      metadata: { n: 1 },
      billable: false,
    }); // t22
    h.createStore(2, 'copy'); // t23
    h.addFile(2, 1, {
      copiedFrom: {
        storeId: store(1),
        chunksKey: 'chunks/1',
        vectorsKey: 'vectors/1',
        model: 'use-lite',
        chunkCount: 4,
        usageTokens: 90,
      },
    }); // t24

    const rows = await pg.project(new StoresProjection(), h.log.events);
    const files = rows[STORE_FILES_TABLE];
    expect(files.map((r) => [r.store_id, r.file_id, r.status])).toEqual([
      [store(1), file(1), 'pending'],
      [store(1), file(2), 'pending'],
      [store(1), file(3), 'failed'],
      [store(1), file(4), 'pending'],
      [store(1), file(6), 'pending'],
      [store(2), file(1), 'completed'],
    ]);
    const fresh = {
      last_error: null,
      attempt: 0,
      worker_id: null,
      lease_expires_at: null,
      retry_at: null,
      chunks_key: null,
      vectors_key: null,
      model: null,
      chunk_count: 0,
      usage_tokens: '0',
    };
    // re-ingestion: a new generation, back to pending, its previous chunks forgotten
    expect(fileRow(files, 1, 1)).toEqual({
      ...fresh,
      bucket_id: null,
      store_id: store(1),
      file_id: file(1),
      organization_id: ORG,
      generation: 2,
      filename: 'doc1.md',
      mime_type: 'text/markdown',
      bytes: '1001',
      sha256: 'sha-1-1',
      status: 'pending',
      blob_key: 'files/1/1',
      file_version: 1,
      metadata: { n: 1 },
      external_id: 'ext-1',
      parsing_strategy: 'fast',
      chunking: null,
      contextualization: false,
      created_at: t(2),
      updated_at: t(22),
      revision: '4',
    });
    expect(fileRow(files, 1, 2)).toMatchObject({
      ...fresh,
      attempt: 1,
      last_error: { message: 'timeout', code: 'embedding_unavailable' },
      retry_at: t(100),
      updated_at: t(8),
      revision: '2',
    });
    expect(fileRow(files, 1, 3)).toMatchObject({
      status: 'failed',
      attempt: 1,
      last_error: { message: 'not a PDF', code: 'parse_error' },
      retry_at: null,
      worker_id: null,
    });
    expect(fileRow(files, 1, 4)).toMatchObject({ metadata: { n: 4, lang: 'de' }, updated_at: t(13) });
    expect(fileRow(files, 1, 6)).toMatchObject({
      ...fresh,
      generation: 2,
      file_version: 2,
      bytes: '6002',
      blob_key: 'files/6/2',
      created_at: t(21),
      revision: '5',
    });
    expect(fileRow(files, 2, 1)).toMatchObject({
      status: 'completed',
      generation: 1,
      chunks_key: 'chunks/1',
      vectors_key: 'vectors/1',
      model: 'use-lite',
      chunk_count: 4,
      usage_tokens: '90',
    });
    // file activity keeps the store's last_active_at current
    expect(byId(rows[STORES_TABLE], store(1))).toMatchObject({
      last_active_at: t(21),
      updated_at: t(1),
      revision: '0',
    });
  });

  it('a file in the middle of ingestion shows its lease, parsed chunks and attempt (after a takeover)', async () => {
    const h = new History();
    h.createStore(1, 'handbook'); // t1
    h.addFile(1, 1); // t2
    const ids = { storeId: store(1), organizationId: ORG, fileId: file(1), generation: 1 };
    h.file({ type: 'StartIngestion', ...ids, workerId: 'w1', leaseMs: 1_000 }); // t3, lease until t4
    h.file({ type: 'StartIngestion', ...ids, workerId: 'w2', leaseMs: 60_000 }); // t4: w1's lease ran out, w2 takes over
    h.file({
      type: 'RecordParsed',
      ...ids,
      workerId: 'w2',
      chunksKey: 'chunks/1',
      chunkCount: 7,
      usageTokens: 300,
      parseMs: 9,
    }); // t5
    const files = (await pg.project(new StoresProjection(), h.log.events))[STORE_FILES_TABLE];
    expect(files).toMatchObject([
      {
        status: 'in_progress',
        attempt: 2,
        worker_id: 'w2',
        lease_expires_at: t(64),
        chunks_key: 'chunks/1',
        chunk_count: 7,
        usage_tokens: '300',
        vectors_key: null,
        updated_at: t(5),
        revision: '3',
      },
    ]);
  });

  // BUG (idempotency: re-applying an event must change nothing): StoreCreated is guarded only by `ON CONFLICT (id)`. When a
  // deleted store's name has been taken by a new store, re-applying the deleted store's StoreCreated
  // re-inserts its row and violates the unique index stores_v1_org_name
  // ("duplicate key value violates unique constraint"), so the projection cannot re-apply its log.
  it('a deleted store’s name reused by a new store survives re-applying the log', async () => {
    const h = new History();
    h.createStore(1, 'handbook');
    h.store({ type: 'DeleteStore', storeId: store(1), organizationId: ORG });
    h.createStore(2, 'handbook');
    const rows = await pg.project(new StoresProjection(), h.log.events);
    expect(rows[STORES_TABLE]).toMatchObject([{ id: store(2), name: 'handbook' }]);
  });

  it('OpenAI vector stores: a display name, chunk sizes, cancelled ingestion and file batches (gone with their store)', async () => {
    const h = new History();
    h.store({
      type: 'CreateStore',
      storeId: store(1),
      organizationId: ORG,
      name: 'notes-5704e000',
      displayName: 'Notes',
      description: null,
      isPublic: false,
      license: null,
      metadata: null,
      config: { ...config, chunking: { maxTokens: 200, overlapTokens: 20 } },
      expiresAfter: null,
    }); // t1
    h.store({ type: 'UpdateStore', storeId: store(1), organizationId: ORG, displayName: 'Bakery Notes' }); // t2
    const batchId = 'ba7c0000-0000-4000-8000-000000000001';
    h.batch({
      type: 'CreateStoreFileBatch',
      batchId,
      storeId: store(1),
      organizationId: ORG,
      fileIds: [file(1), file(2)],
    }); // t3
    h.file({
      type: 'AddStoreFile',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(1),
      filename: 'doc1.md',
      mimeType: 'text/markdown',
      bytes: 10,
      sha256: 'sha-1',
      blobKey: 'files/1/1',
      fileVersion: 1,
      metadata: { shelf: 'top' },
      externalId: null,
      parsingStrategy: 'fast',
      chunking: { maxTokens: 200, overlapTokens: 20 },
      contextualization: false,
    }); // t4
    h.addFile(1, 2); // t5
    h.ingest(1, 2); // t6-t8
    h.batch({ type: 'CancelStoreFileBatch', batchId, storeId: store(1), organizationId: ORG }); // t9
    h.file({ type: 'CancelStoreFileIngestion', storeId: store(1), organizationId: ORG, fileId: file(1) }); // t10
    const rows = await pg.project(new StoresProjection(), h.log.events);
    expect(rows[STORES_TABLE]).toMatchObject([
      {
        name: 'notes-5704e000',
        display_name: 'Bakery Notes',
        config: { chunking: { maxTokens: 200, overlapTokens: 20 } },
      },
    ]);
    expect(rows[STORE_FILES_TABLE].map((r) => [r.file_id, r.status, r.chunking])).toEqual([
      [file(1), 'cancelled', { maxTokens: 200, overlapTokens: 20 }],
      [file(2), 'completed', null],
    ]);
    expect(rows[STORE_FILE_BATCHES_TABLE]).toMatchObject([
      { id: batchId, store_id: store(1), organization_id: ORG, created_at: t(3), cancelled_at: t(9), revision: '1' },
    ]);

    h.store({ type: 'DeleteStore', storeId: store(1), organizationId: ORG });
    expect((await pg.project(new StoresProjection(), h.log.events))[STORE_FILE_BATCHES_TABLE]).toEqual([]);
  });

  it('a store in a bucket, and its files, carry the bucket id', async () => {
    const BUCKET = 'b0c4e700-0000-4000-8000-000000000001';
    const h = new History();
    h.store({
      type: 'CreateStore',
      storeId: store(1),
      organizationId: ORG,
      name: 'in-bucket',
      description: null,
      isPublic: false,
      license: null,
      metadata: null,
      config,
      expiresAfter: null,
      bucketId: BUCKET,
    });
    h.file({
      type: 'AddStoreFile',
      storeId: store(1),
      organizationId: ORG,
      fileId: file(1),
      filename: 'a.md',
      mimeType: 'text/markdown',
      bytes: 1,
      sha256: 's',
      blobKey: 'files/a',
      fileVersion: 1,
      metadata: null,
      externalId: null,
      parsingStrategy: 'fast',
      contextualization: false,
      bucketId: BUCKET,
    });
    h.createStore(2, 'platform');
    const rows = await pg.project(new StoresProjection(), h.log.events);
    expect(byId(rows[STORES_TABLE], store(1))).toMatchObject({ bucket_id: BUCKET });
    expect(byId(rows[STORES_TABLE], store(2))).toMatchObject({ bucket_id: null });
    expect(fileRow(rows[STORE_FILES_TABLE], 1, 1)).toMatchObject({ bucket_id: BUCKET });
  });
});

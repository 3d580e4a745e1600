/** Stores projection, the store-files table: ingestion, retries, failure, removal, re-ingestion and leases. */
import { projectionTestDatabase } from '@larder/kernel/testing';
import { ORG, store, file, t, History, byId, fileRow } from '@larder/stores/testing/store-history';
import { StoresProjection } from './stores.projection';
import { STORE_FILES_TABLE, STORES_TABLE } from './stores.tables';

describe('stores projection', () => {
  const pg = projectionTestDatabase();

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
});

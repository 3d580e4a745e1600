/** Stores projection for OpenAI vector stores: display names, chunk sizes, cancellation and file batches. */
import { projectionTestDatabase } from '@larder/kernel/testing';
import { ORG, store, file, t, config, History } from '@larder/stores/testing/store-history';
import { StoresProjection } from './stores.projection';
import { STORE_FILE_BATCHES_TABLE, STORE_FILES_TABLE, STORES_TABLE } from './stores.tables';

describe('stores projection', () => {
  const pg = projectionTestDatabase();

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
});

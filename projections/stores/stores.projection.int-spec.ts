/** Stores projection, the stores table: lifecycle, expiry, copies, name reuse and bucket stores. */
import { projectionTestDatabase } from '@larder/kernel/testing';
import { ORG, OTHER_ORG, store, file, t, config, History, byId, fileRow } from '@larder/stores/testing/store-history';
import { StoresProjection } from './stores.projection';
import { STORE_FILES_TABLE, STORES_TABLE } from './stores.tables';

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

  it('a deleted store’s name reused by a new store survives re-applying the log', async () => {
    const h = new History();
    h.createStore(1, 'handbook');
    h.store({ type: 'DeleteStore', storeId: store(1), organizationId: ORG });
    h.createStore(2, 'handbook');
    const rows = await pg.project(new StoresProjection(), h.log.events);
    expect(rows[STORES_TABLE]).toMatchObject([{ id: store(2), name: 'handbook' }]);
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

import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { StoreFileBatchCommand, storeFileBatchDecider } from './store-file-batch.aggregate';
import { StoreFileBatchEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const STORE = '22222222-2222-4222-8222-222222222222';
const OTHER_STORE = '44444444-4444-4444-8444-444444444444';
const BATCH = '33333333-3333-4333-8333-333333333333';
const FILES = ['55555555-5555-4555-8555-555555555555', '66666666-6666-4666-8666-666666666666'];
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const create: StoreFileBatchCommand = {
  type: 'CreateStoreFileBatch',
  batchId: BATCH,
  storeId: STORE,
  organizationId: ORG,
  fileIds: FILES,
  now: t(0),
};
const created: StoreFileBatchEvent = {
  type: 'StoreFileBatchCreated',
  data: { batchId: BATCH, storeId: STORE, organizationId: ORG, fileIds: FILES, at: t(0).toISOString() },
};
const cancel = (o: { organizationId?: string; storeId?: string } = {}): StoreFileBatchCommand => ({
  type: 'CancelStoreFileBatch',
  batchId: BATCH,
  storeId: o.storeId ?? STORE,
  organizationId: o.organizationId ?? ORG,
  now: t(5),
});
const cancelled: StoreFileBatchEvent = {
  type: 'StoreFileBatchCancelled',
  data: { batchId: BATCH, storeId: STORE, organizationId: ORG, at: t(5).toISOString() },
};

describe('store file batch decider', () => {
  it('records the files of a batch once', () => {
    const { state } = given(storeFileBatchDecider).when(create).then(created);
    expect(state).toEqual({
      status: 'created',
      organizationId: ORG,
      storeId: STORE,
      fileIds: FILES,
      createdAt: t(0).toISOString(),
    });
    given(storeFileBatchDecider, created).when(create).thenThrows(ConflictError);
  });

  it('cancels once; cancelling again changes nothing', () => {
    expect(given(storeFileBatchDecider, created).when(cancel()).then(cancelled).state.status).toBe('cancelled');
    given(storeFileBatchDecider, created, cancelled).when(cancel()).thenNothing();
  });

  it('a batch of another organization or store, or none, is not found', () => {
    given(storeFileBatchDecider).when(cancel()).thenThrows(NotFoundError);
    given(storeFileBatchDecider, created)
      .when(cancel({ organizationId: OTHER_ORG }))
      .thenThrows(NotFoundError);
    given(storeFileBatchDecider, created)
      .when(cancel({ storeId: OTHER_STORE }))
      .thenThrows(NotFoundError);
  });
});

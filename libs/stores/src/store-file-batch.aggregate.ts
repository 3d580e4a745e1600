import { ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { StoreFileBatchEvent } from './events';

export interface StoreFileBatchState {
  status: 'absent' | 'created' | 'cancelled';
  organizationId: string | null;
  storeId: string | null;
  fileIds: string[];
  createdAt: string | null;
}

export type StoreFileBatchCommand =
  | {
      type: 'CreateStoreFileBatch';
      batchId: string;
      storeId: string;
      organizationId: string;
      fileIds: string[];
      now: Date;
    }
  | { type: 'CancelStoreFileBatch'; batchId: string; storeId: string; organizationId: string; now: Date };

/**
 * A file batch (OpenAI's vector store file batches): the set of files it attaches to one store, and
 * whether it was cancelled. What became of each file is the store file's own state.
 */
export const storeFileBatchDecider: Decider<StoreFileBatchState, StoreFileBatchCommand, StoreFileBatchEvent> = {
  initialState: () => ({ status: 'absent', organizationId: null, storeId: null, fileIds: [], createdAt: null }),
  evolve(s, e) {
    switch (e.type) {
      case 'StoreFileBatchCreated':
        return {
          status: 'created',
          organizationId: e.data.organizationId,
          storeId: e.data.storeId,
          fileIds: e.data.fileIds,
          createdAt: e.data.at,
        };
      case 'StoreFileBatchCancelled':
        return { ...s, status: 'cancelled' };
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'CreateStoreFileBatch') {
      if (s.status !== 'absent') throw new ConflictError(`File batch ${c.batchId} already exists`);
      return [
        {
          type: 'StoreFileBatchCreated',
          data: { batchId: c.batchId, storeId: c.storeId, organizationId: c.organizationId, fileIds: c.fileIds, at },
        },
      ];
    }
    if (s.status === 'absent' || s.organizationId !== c.organizationId || s.storeId !== c.storeId)
      throw new NotFoundError(`File batch ${c.batchId} not found`);
    if (s.status === 'cancelled') return [];
    return [
      {
        type: 'StoreFileBatchCancelled',
        data: { batchId: c.batchId, storeId: c.storeId, organizationId: c.organizationId, at },
      },
    ];
  },
};

import { ConflictError, Decider } from '@larder/kernel';
import { StoreExternalIdEvent } from './events';

export interface StoreExternalIdState {
  /** The file that holds the external id in the store (it may have been removed since). */
  holder: string | null;
}

export interface ClaimStoreExternalId {
  type: 'ClaimStoreExternalId';
  organizationId: string;
  storeId: string;
  externalId: string;
  fileId: string;
  /** `overwrite: false` refuses a holder that is still in the store. */
  overwrite: boolean;
  /** Whether the current holder is still in the store (read from its stream by the caller). */
  holderPresent: boolean;
  now: Date;
}

/**
 * `(store, external_id)` is claimed by one file at a time: concurrent upserts of one external id are
 * serialized by this stream, so exactly one of them ends up holding it, and each names the holder it
 * took over from so that file can be removed from the store.
 */
export const storeExternalIdDecider: Decider<StoreExternalIdState, ClaimStoreExternalId, StoreExternalIdEvent> = {
  initialState: () => ({ holder: null }),
  evolve: (_s, e) => ({ holder: e.data.fileId }),
  decide(c, s) {
    if (s.holder === c.fileId) return [];
    if (s.holder && c.holderPresent && !c.overwrite) throw new ConflictError(`A file with external_id '${c.externalId}' already exists in store ${c.storeId}`);
    return [
      {
        type: 'StoreExternalIdClaimed',
        data: { organizationId: c.organizationId, storeId: c.storeId, externalId: c.externalId, fileId: c.fileId, previousFileId: s.holder, at: c.now.toISOString() },
      },
    ];
  },
};

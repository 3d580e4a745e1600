import { ConflictError, Decider } from '@larder/kernel';
import { StoreNameEvent } from './events';

export interface StoreNameState {
  holder: string | null;
  claimedAt: Date | null;
}

export type StoreNameCommand =
  | {
      type: 'ClaimStoreName';
      organizationId: string;
      name: string;
      storeId: string;
      now: Date;
      /** The current holder is a store that never came to exist (a crash between claim and create). */
      orphanHolder?: boolean;
    }
  | { type: 'ReleaseStoreName'; organizationId: string; name: string; storeId: string; now: Date };

/** Claim before create, release on rename or delete: the name stream serializes competing creators. */
export const storeNameDecider: Decider<StoreNameState, StoreNameCommand, StoreNameEvent> = {
  initialState: () => ({ holder: null, claimedAt: null }),
  evolve(s, e) {
    return e.type === 'StoreNameClaimed'
      ? { holder: e.data.storeId, claimedAt: new Date(e.data.at) }
      : { holder: null, claimedAt: null };
  },
  decide(c, s) {
    const at = c.now.toISOString();
    if (c.type === 'ClaimStoreName') {
      if (s.holder === c.storeId) return [];
      if (s.holder && !c.orphanHolder) throw new ConflictError(`A store named '${c.name}' already exists`);
      return [
        { type: 'StoreNameClaimed', data: { organizationId: c.organizationId, name: c.name, storeId: c.storeId, at } },
      ];
    }
    if (s.holder !== c.storeId) return [];
    return [
      { type: 'StoreNameReleased', data: { organizationId: c.organizationId, name: c.name, storeId: c.storeId, at } },
    ];
  },
};

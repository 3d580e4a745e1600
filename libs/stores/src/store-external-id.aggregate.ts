import { ConflictError, Decider, WrongExpectedRevisionError } from '@larder/kernel';
import { StoreExternalIdEvent } from './events';

/**
 * How long a claim whose file has not been added yet keeps the id from `overwrite: false` claimants.
 * A claimant adds its file right after its claim (milliseconds); one that died in between (kill -9)
 * leaves a claim that is given up after this long, so the id is never stuck.
 */
export const CLAIM_PENDING_MS = 5 * 60_000;

interface Holding {
  /** The file that holds the external id in the store (it may have been removed since). */
  holder: string | null;
  claimedAt: Date | null;
  /** The holder's store-file stream revision when it claimed (null: a claim older than this field). */
  fileRevision: number | null;
}

export interface StoreExternalIdState extends Holding {
  /** What the holder took over from: a release gives the id back to it. */
  prior: Holding | null;
  /** How many events the stream holds: a claim is decided on the view its claimant judged. */
  version: number;
}

/**
 * The holder as its store-file stream shows it: `present` (in the store with this external id),
 * `adding` (claimed, its add not appended yet) or `gone` (removed, or re-added with another id).
 */
export type HolderStatus = 'present' | 'adding' | 'gone';

export interface ClaimStoreExternalId {
  type: 'ClaimStoreExternalId';
  organizationId: string;
  storeId: string;
  externalId: string;
  fileId: string;
  /** The claimant's store-file stream revision now (-1: no stream yet). */
  fileRevision: number;
  /** `overwrite: false` refuses a holder that is in the store or being added. */
  overwrite: boolean;
  /** The stream's version the caller read the holder's status at (`holderStatus` is about that holder). */
  seen: number;
  holderStatus: HolderStatus;
  now: Date;
}

export interface ReleaseStoreExternalId {
  type: 'ReleaseStoreExternalId';
  organizationId: string;
  storeId: string;
  externalId: string;
  fileId: string;
  now: Date;
}

export type StoreExternalIdCommand = ClaimStoreExternalId | ReleaseStoreExternalId;

const free: Holding = { holder: null, claimedAt: null, fileRevision: null };

/**
 * `(store, external_id)` is claimed by one file at a time: concurrent upserts of one external id are
 * serialized by this stream, so exactly one of them ends up holding it, and each names the holder it
 * took over from so that file can be removed from the store. A claim counts as held from the moment
 * it is appended: until its file is added (or `CLAIM_PENDING_MS` passed), `overwrite: false` is refused.
 */
export const storeExternalIdDecider: Decider<StoreExternalIdState, StoreExternalIdCommand, StoreExternalIdEvent> = {
  initialState: () => ({ ...free, prior: null, version: 0 }),
  evolve: (s, e) => {
    const version = s.version + 1;
    if (e.type === 'StoreExternalIdReleased') return { ...(s.prior ?? free), prior: null, version };
    const { holder, claimedAt, fileRevision } = s;
    return {
      holder: e.data.fileId,
      claimedAt: new Date(e.data.at),
      fileRevision: e.data.fileRevision ?? null,
      prior: { holder, claimedAt, fileRevision },
      version,
    };
  },
  decide(c, s) {
    const at = c.now.toISOString();
    const ids = { organizationId: c.organizationId, storeId: c.storeId, externalId: c.externalId, fileId: c.fileId };
    if (c.type === 'ReleaseStoreExternalId') {
      if (s.holder !== c.fileId) return [];
      return [{ type: 'StoreExternalIdReleased', data: { ...ids, restoredFileId: s.prior?.holder ?? null, at } }];
    }
    if (s.holder === c.fileId) return [];
    // the holder's status was read for the stream as it was then: a claim appended since names another holder
    if (c.seen !== s.version)
      throw new WrongExpectedRevisionError(`store_external_id ${c.externalId}`, c.seen, s.version);
    const adding =
      c.holderStatus === 'adding' && s.claimedAt !== null && c.now.getTime() - s.claimedAt.getTime() < CLAIM_PENDING_MS;
    if (s.holder && !c.overwrite && (c.holderStatus === 'present' || adding)) {
      throw new ConflictError(`A file with external_id '${c.externalId}' already exists in store ${c.storeId}`);
    }
    return [
      {
        type: 'StoreExternalIdClaimed',
        data: { ...ids, previousFileId: s.holder, fileRevision: c.fileRevision, overwrite: c.overwrite, at },
      },
    ];
  },
};

import { ConflictError, WrongExpectedRevisionError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import {
  CLAIM_PENDING_MS,
  ClaimStoreExternalId,
  HolderStatus,
  ReleaseStoreExternalId,
  storeExternalIdDecider,
} from './store-external-id.aggregate';
import { StoreExternalIdEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const STORE = '22222222-2222-4222-8222-222222222222';
const A = 'f11e0000-0000-4000-8000-00000000000a';
const B = 'f11e0000-0000-4000-8000-00000000000b';
const C = 'f11e0000-0000-4000-8000-00000000000c';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const claimed = (
  fileId: string,
  previousFileId: string | null,
  s: number,
  fileRevision = -1,
  overwrite = false,
): StoreExternalIdEvent => ({
  type: 'StoreExternalIdClaimed',
  data: {
    organizationId: ORG,
    storeId: STORE,
    externalId: 'docs/guide.md',
    fileId,
    previousFileId,
    fileRevision,
    overwrite,
    at: t(s).toISOString(),
  },
});
const released = (fileId: string, restoredFileId: string | null, s: number): StoreExternalIdEvent => ({
  type: 'StoreExternalIdReleased',
  data: {
    organizationId: ORG,
    storeId: STORE,
    externalId: 'docs/guide.md',
    fileId,
    restoredFileId,
    at: t(s).toISOString(),
  },
});
const claim = (
  fileId: string,
  s: number,
  o: { overwrite?: boolean; holder?: HolderStatus; seen?: number; at?: Date } = {},
): ClaimStoreExternalId => ({
  type: 'ClaimStoreExternalId',
  organizationId: ORG,
  storeId: STORE,
  externalId: 'docs/guide.md',
  fileId,
  fileRevision: -1,
  overwrite: o.overwrite ?? false,
  seen: o.seen ?? 0,
  holderStatus: o.holder ?? 'present',
  now: o.at ?? t(s),
});
const release = (fileId: string, s: number): ReleaseStoreExternalId => ({
  type: 'ReleaseStoreExternalId',
  organizationId: ORG,
  storeId: STORE,
  externalId: 'docs/guide.md',
  fileId,
  now: t(s),
});

describe('store external id decider', () => {
  it('the first file claims a free external id', () => {
    const { state } = given(storeExternalIdDecider)
      .when(claim(A, 1))
      .then(claimed(A, null, 1));
    expect(state).toMatchObject({ holder: A, claimedAt: t(1), fileRevision: -1, version: 1 });
  });

  it('the holder claiming again appends nothing (a retried upsert)', () => {
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(A, 2))
      .thenNothing();
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(A, 2, { overwrite: true }))
      .thenNothing();
  });

  it('without overwrite, refuses an id whose holder is still in the store', () => {
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { seen: 1 }))
      .thenThrows(ConflictError, `A file with external_id 'docs/guide.md' already exists in store ${STORE}`);
  });

  it('with overwrite, takes the id over and names the file to remove', () => {
    const { state } = given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { overwrite: true, seen: 1 }))
      .then(claimed(B, A, 2, -1, true));
    expect(state.holder).toBe(B);
    // and the next upsert takes it from B
    given(storeExternalIdDecider, claimed(A, null, 1), claimed(B, A, 2))
      .when(claim(C, 3, { overwrite: true, seen: 2 }))
      .then(claimed(C, B, 3, -1, true));
  });

  it('a holder no longer in the store gives the id up even without overwrite', () => {
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { holder: 'gone', seen: 1 }))
      .then(claimed(B, A, 2));
  });

  it('without overwrite, refuses an id whose holder is being added (claimed, its add not appended yet)', () => {
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { holder: 'adding', seen: 1 }))
      .thenThrows(ConflictError, `A file with external_id 'docs/guide.md' already exists in store ${STORE}`);
    // with overwrite the later upsert wins, as it would once the holder is added
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { holder: 'adding', seen: 1, overwrite: true }))
      .then(claimed(B, A, 2, -1, true));
  });

  it('a claim whose file was never added (its claimant died) stops holding the id after CLAIM_PENDING_MS', () => {
    const later = (ms: number) => new Date(t(1).getTime() + ms);
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 0, { holder: 'adding', seen: 1, at: later(CLAIM_PENDING_MS - 1) }))
      .thenThrows(ConflictError);
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 0, { holder: 'adding', seen: 1, at: later(CLAIM_PENDING_MS) }))
      .thenMatches({ type: 'StoreExternalIdClaimed', data: { fileId: B, previousFileId: A } });
  });

  it('a holder judged on an older view of the stream is looked at again (another claim came in between)', () => {
    // B read the stream when it was empty; A claimed meanwhile and is being added
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { holder: 'gone', seen: 0 }))
      .thenThrows(WrongExpectedRevisionError);
  });

  it('a claimant whose add failed gives the id back to the file that held it before', () => {
    const { state } = given(storeExternalIdDecider, claimed(A, null, 1), claimed(B, A, 2, 4))
      .when(release(B, 3))
      .then(released(B, A, 3));
    expect(state).toMatchObject({ holder: A, claimedAt: t(1), fileRevision: -1, version: 3 });
    // and with nobody before it, the id is free
    const free = given(storeExternalIdDecider, claimed(A, null, 1))
      .when(release(A, 2))
      .then(released(A, null, 2)).state;
    expect(free.holder).toBeNull();
    given(storeExternalIdDecider, claimed(A, null, 1), released(A, null, 2))
      .when(claim(B, 3, { holder: 'gone', seen: 2 }))
      .then(claimed(B, null, 3));
  });

  it('only the holder releases: a claimant that was taken over from releases nothing', () => {
    given(storeExternalIdDecider, claimed(A, null, 1), claimed(B, A, 2))
      .when(release(A, 3))
      .thenNothing();
  });
});

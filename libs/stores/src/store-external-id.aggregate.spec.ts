import { ConflictError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { ClaimStoreExternalId, storeExternalIdDecider } from './store-external-id.aggregate';
import { StoreExternalIdEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const STORE = '22222222-2222-4222-8222-222222222222';
const A = 'f11e0000-0000-4000-8000-00000000000a';
const B = 'f11e0000-0000-4000-8000-00000000000b';
const C = 'f11e0000-0000-4000-8000-00000000000c';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const claimed = (fileId: string, previousFileId: string | null, s: number): StoreExternalIdEvent => ({
  type: 'StoreExternalIdClaimed',
  data: { organizationId: ORG, storeId: STORE, externalId: 'docs/guide.md', fileId, previousFileId, at: t(s).toISOString() },
});
const claim = (fileId: string, s: number, o: { overwrite?: boolean; holderPresent?: boolean } = {}): ClaimStoreExternalId => ({
  type: 'ClaimStoreExternalId',
  organizationId: ORG,
  storeId: STORE,
  externalId: 'docs/guide.md',
  fileId,
  overwrite: o.overwrite ?? false,
  holderPresent: o.holderPresent ?? true,
  now: t(s),
});

describe('store external id decider', () => {
  it('the first file claims a free external id', () => {
    const { state } = given(storeExternalIdDecider)
      .when(claim(A, 1))
      .then(claimed(A, null, 1));
    expect(state).toEqual({ holder: A });
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
      .when(claim(B, 2))
      .thenThrows(ConflictError, `A file with external_id 'docs/guide.md' already exists in store ${STORE}`);
  });

  it('with overwrite, takes the id over and names the file to remove', () => {
    const { state } = given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { overwrite: true }))
      .then(claimed(B, A, 2));
    expect(state.holder).toBe(B);
    // and the next upsert takes it from B
    given(storeExternalIdDecider, claimed(A, null, 1), claimed(B, A, 2))
      .when(claim(C, 3, { overwrite: true }))
      .then(claimed(C, B, 3));
  });

  it('a holder no longer in the store gives the id up even without overwrite', () => {
    given(storeExternalIdDecider, claimed(A, null, 1))
      .when(claim(B, 2, { holderPresent: false }))
      .then(claimed(B, A, 2));
  });
});

import { ConflictError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { StoreNameCommand, storeNameDecider } from './store-name.aggregate';
import { StoreNameEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const A = '22222222-2222-4222-8222-222222222222';
const B = '33333333-3333-4333-8333-333333333333';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const claimed = (storeId: string, s = 0): StoreNameEvent => ({
  type: 'StoreNameClaimed',
  data: { organizationId: ORG, name: 'handbook', storeId, at: t(s).toISOString() },
});
const released = (storeId: string, s = 5): StoreNameEvent => ({
  type: 'StoreNameReleased',
  data: { organizationId: ORG, name: 'handbook', storeId, at: t(s).toISOString() },
});
const claim = (storeId: string, s = 0, orphanHolder?: boolean): StoreNameCommand => ({
  type: 'ClaimStoreName',
  organizationId: ORG,
  name: 'handbook',
  storeId,
  now: t(s),
  ...(orphanHolder ? { orphanHolder } : {}),
});
const release = (storeId: string, s = 5): StoreNameCommand => ({
  type: 'ReleaseStoreName',
  organizationId: ORG,
  name: 'handbook',
  storeId,
  now: t(s),
});

describe('store name decider', () => {
  it('claims a free name for a store', () => {
    const { state } = given(storeNameDecider).when(claim(A)).then(claimed(A));
    expect(state).toEqual({ holder: A, claimedAt: t(0) });
  });

  it('claiming again for the same store appends nothing (a retried create)', () => {
    given(storeNameDecider, claimed(A)).when(claim(A, 3)).thenNothing();
  });

  it('refuses a name another store holds', () => {
    given(storeNameDecider, claimed(A))
      .when(claim(B, 1))
      .thenThrows(ConflictError, "A store named 'handbook' already exists");
  });

  it('takes the name over from a holder that never came to exist', () => {
    const { state } = given(storeNameDecider, claimed(A))
      .when(claim(B, 9, true))
      .then(claimed(B, 9));
    expect(state.holder).toBe(B);
  });

  it('the holder releases it, and another store may claim it then', () => {
    const { state } = given(storeNameDecider, claimed(A)).when(release(A)).then(released(A));
    expect(state).toEqual({ holder: null, claimedAt: null });
    given(storeNameDecider, claimed(A), released(A)).when(claim(B, 6)).then(claimed(B, 6));
  });

  it('a release by a store that does not hold the name, or of a free name, appends nothing', () => {
    given(storeNameDecider, claimed(A)).when(release(B)).thenNothing();
    given(storeNameDecider).when(release(A)).thenNothing();
    given(storeNameDecider, claimed(A), released(A)).when(release(A, 7)).thenNothing();
  });
});

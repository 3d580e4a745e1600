import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { StoreCommand, storeDecider, STORE_NAME } from './store.aggregate';
import { StoreEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const STORE = '22222222-2222-4222-8222-222222222222';
const PEER = '33333333-3333-4333-8333-333333333333';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();

const config = { contextualization: false, save_content: true };
const created: StoreEvent = {
  type: 'StoreCreated',
  data: {
    storeId: STORE,
    organizationId: ORG,
    name: 'handbook',
    description: 'd',
    isPublic: false,
    license: null,
    metadata: { team: 'a' },
    config,
    expiresAfter: null,
    at: at(0),
  },
};
const expired: StoreEvent = { type: 'StoreExpired', data: { storeId: STORE, at: at(5) } };
const deleted: StoreEvent = {
  type: 'StoreDeleted',
  data: { storeId: STORE, organizationId: ORG, name: 'handbook', at: at(6) },
};
const copyStarted = (role: 'source' | 'target'): StoreEvent => ({
  type: 'StoreCopyStarted',
  data: { storeId: STORE, role, peerStoreId: PEER, at: at(3) },
});

const base = { storeId: STORE, organizationId: ORG };
const create: StoreCommand = {
  type: 'CreateStore',
  ...base,
  name: 'handbook',
  description: 'd',
  isPublic: false,
  license: null,
  metadata: { team: 'a' },
  config,
  expiresAfter: null,
  now: t(0),
};
const update = (
  fields: Partial<Extract<StoreCommand, { type: 'UpdateStore' }>> = {},
  organizationId = ORG,
): StoreCommand => ({ type: 'UpdateStore', ...base, organizationId, now: t(4), ...fields });
const expire = (organizationId = ORG): StoreCommand => ({ type: 'ExpireStore', ...base, organizationId, now: t(5) });
const remove = (organizationId = ORG): StoreCommand => ({ type: 'DeleteStore', ...base, organizationId, now: t(6) });
const startCopy = (role: 'source' | 'target', organizationId = ORG): StoreCommand => ({
  type: 'StartCopy',
  ...base,
  organizationId,
  role,
  peerStoreId: PEER,
  now: t(3),
});
const finishCopy = (error: string | null, organizationId = ORG): StoreCommand => ({
  type: 'FinishCopy',
  ...base,
  organizationId,
  role: 'target',
  peerStoreId: PEER,
  error,
  now: t(7),
});

describe('store decider', () => {
  describe('CreateStore', () => {
    it('creates a store with everything it was given', () => {
      const { state } = given(storeDecider).when(create).then(created);
      expect(state).toEqual({
        status: 'active',
        organizationId: ORG,
        name: 'handbook',
        bucketId: null,
        copying: null,
        view: {
          displayName: null,
          description: 'd',
          isPublic: false,
          license: null,
          metadata: { team: 'a' },
          expiresAfter: null,
          config,
          createdAt: at(0),
          updatedAt: at(0),
          copyState: null,
        },
      });
    });

    it('records the bucket a store keeps its objects in, and names it again when the store is deleted', () => {
      const BUCKET = '44444444-4444-4444-8444-444444444444';
      const inBucket = { ...created, data: { ...created.data, bucketId: BUCKET } } as StoreEvent;
      const { state } = given(storeDecider)
        .when({ ...create, bucketId: BUCKET })
        .then(inBucket);
      expect(state.bucketId).toBe(BUCKET);
      given(storeDecider, inBucket)
        .when(remove())
        .then({ type: 'StoreDeleted', data: { ...base, name: 'handbook', bucketId: BUCKET, at: at(6) } });
      given(storeDecider)
        .when({ ...create, bucketId: null })
        .then(created);
    });

    it('keeps a free-text display name beside the identifier, and writes it only when there is one', () => {
      const named: StoreEvent = {
        ...created,
        data: { ...(created.data as object), displayName: 'Sourdough Notes' },
      } as StoreEvent;
      const { state } = given(storeDecider)
        .when({ ...create, displayName: 'Sourdough Notes' })
        .then(named);
      expect(state).toMatchObject({ name: 'handbook', view: { displayName: 'Sourdough Notes' } });
      given(storeDecider)
        .when({ ...create, displayName: null })
        .then(created);
      const renamed = given(storeDecider, named)
        .when(update({ displayName: 'Bakery Notes' }))
        .then({ type: 'StoreUpdated', data: { storeId: STORE, displayName: 'Bakery Notes', at: at(4) } });
      expect(renamed.state).toMatchObject({ name: 'handbook', view: { displayName: 'Bakery Notes' } });
    });

    it('refuses to create a store that exists, was deleted or expired', () => {
      given(storeDecider, created)
        .when(create)
        .thenThrows(ConflictError, /already exists/);
      given(storeDecider, created, deleted).when(create).thenThrows(ConflictError);
      given(storeDecider, created, expired).when(create).thenThrows(ConflictError);
    });
  });

  describe('UpdateStore', () => {
    it('records only the fields given', () => {
      given(storeDecider, created)
        .when(update({ description: null, metadata: { team: 'b' } }))
        .then({
          type: 'StoreUpdated',
          data: { storeId: STORE, description: null, metadata: { team: 'b' }, at: at(4) },
        });
    });

    it('records every field it may change, and a rename shows in state', () => {
      const expiresAfter = { anchor: 'last_active_at' as const, days: 7 };
      const { state } = given(storeDecider, created)
        .when(
          update({ name: 'manual', description: 'x', isPublic: true, license: 'MIT', metadata: null, expiresAfter }),
        )
        .then({
          type: 'StoreUpdated',
          data: {
            storeId: STORE,
            name: 'manual',
            description: 'x',
            isPublic: true,
            license: 'MIT',
            metadata: null,
            expiresAfter,
            at: at(4),
          },
        });
      expect(state.name).toBe('manual');
      expect(state.view).toEqual({
        displayName: null,
        description: 'x',
        isPublic: true,
        license: 'MIT',
        metadata: null,
        expiresAfter,
        config,
        createdAt: at(0),
        updatedAt: at(4),
        copyState: null,
      });
    });

    it('reactivates an expired store', () => {
      const { state } = given(storeDecider, created, expired)
        .when(update({ description: 'back' }))
        .thenMatches({ type: 'StoreUpdated' });
      expect(state.status).toBe('active');
    });

    it('treats a missing, deleted or other organization’s store as not found', () => {
      given(storeDecider)
        .when(update({ name: 'x' }))
        .thenThrows(NotFoundError, `Store ${STORE} not found`);
      given(storeDecider, created, deleted)
        .when(update({ name: 'x' }))
        .thenThrows(NotFoundError);
      given(storeDecider, created)
        .when(update({ name: 'x' }, OTHER_ORG))
        .thenThrows(NotFoundError);
    });
  });

  describe('ExpireStore', () => {
    it('expires an active store once; expiring again appends nothing', () => {
      const { state } = given(storeDecider, created).when(expire()).then(expired);
      expect(state.status).toBe('expired');
      expect(state.view?.updatedAt).toBe(at(5));
      given(storeDecider, created, expired).when(expire()).thenNothing();
    });

    it('does not expire a deleted or another organization’s store', () => {
      given(storeDecider, created, deleted).when(expire()).thenThrows(NotFoundError);
      given(storeDecider, created).when(expire(OTHER_ORG)).thenThrows(NotFoundError);
    });
  });

  describe('DeleteStore', () => {
    it('deletes with the name to release, also when expired', () => {
      const { state } = given(storeDecider, created).when(remove()).then(deleted);
      expect(state.status).toBe('deleted');
      given(storeDecider, created, expired).when(remove()).then(deleted);
    });

    it('deletes the name the store has now', () => {
      const renamed: StoreEvent = { type: 'StoreUpdated', data: { storeId: STORE, name: 'manual', at: at(2) } };
      given(storeDecider, created, renamed)
        .when(remove())
        .thenMatches({ type: 'StoreDeleted', data: { name: 'manual' } });
    });

    it('refuses while a copy runs, on either side, and allows it once the copy has finished', () => {
      given(storeDecider, created, copyStarted('source'))
        .when(remove())
        .thenThrows(ConflictError, /being copied/);
      given(storeDecider, created, copyStarted('target')).when(remove()).thenThrows(ConflictError);
      const finished: StoreEvent = {
        type: 'StoreCopyFinished',
        data: { storeId: STORE, role: 'source', peerStoreId: PEER, error: null, at: at(4) },
      };
      given(storeDecider, created, copyStarted('source'), finished).when(remove()).then(deleted);
    });

    it('a deleted store cannot be deleted again; another organization cannot delete it', () => {
      given(storeDecider, created, deleted).when(remove()).thenThrows(NotFoundError);
      given(storeDecider, created).when(remove(OTHER_ORG)).thenThrows(NotFoundError);
    });
  });

  describe('copy', () => {
    it('starts a copy on each side, once', () => {
      const { state } = given(storeDecider, created).when(startCopy('source')).then(copyStarted('source'));
      expect(state.copying).toEqual({ role: 'source', peerStoreId: PEER });
      expect(state.view?.copyState).toEqual({
        role: 'source',
        status: 'in_progress',
        peer_store_id: PEER,
        started_at: at(3),
        error: null,
      });
      given(storeDecider, created).when(startCopy('target')).then(copyStarted('target'));
      given(storeDecider, created, copyStarted('source'))
        .when(startCopy('source'))
        .thenThrows(ConflictError, /already being copied/);
    });

    it('finishes a running copy with or without an error; finishing when none runs appends nothing', () => {
      const { state } = given(storeDecider, created, copyStarted('target'))
        .when(finishCopy('boom'))
        .then({
          type: 'StoreCopyFinished',
          data: { storeId: STORE, role: 'target', peerStoreId: PEER, error: 'boom', at: at(7) },
        });
      expect(state.copying).toBeNull();
      // a failed copy stays visible in the view; a finished one clears it
      expect(state.view?.copyState).toEqual({
        role: 'target',
        status: 'failed',
        peer_store_id: PEER,
        started_at: at(3),
        error: 'boom',
      });
      const ok = given(storeDecider, created, copyStarted('target'))
        .when(finishCopy(null))
        .thenMatches({ type: 'StoreCopyFinished', data: { error: null } });
      expect(ok.state.view?.copyState).toBeNull();
      given(storeDecider, created).when(finishCopy(null)).thenNothing();
    });

    it('copies only a live store of the caller’s organization', () => {
      given(storeDecider, created).when(startCopy('source', OTHER_ORG)).thenThrows(NotFoundError);
      given(storeDecider, created, deleted).when(startCopy('source')).thenThrows(NotFoundError);
      given(storeDecider, created, copyStarted('target')).when(finishCopy(null, OTHER_ORG)).thenThrows(NotFoundError);
    });
  });

  it('store names are lowercase letters, digits, dots and dashes, 1 to 128 characters', () => {
    for (const ok of ['a', 'handbook-v2.1', 'x'.repeat(128)]) expect(ok).toMatch(STORE_NAME);
    for (const bad of ['', 'Handbook', 'a b', 'a_b', 'x'.repeat(129), 'é']) expect(bad).not.toMatch(STORE_NAME);
  });
});

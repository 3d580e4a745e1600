/** Store-file decider: adding, replacing, updating and removing a file, and the not-found checks of every command. */
import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { StoreFileCommand, storeFileDecider } from './store-file.aggregate';
import {
  ORG,
  OTHER_ORG,
  STORE,
  FILE,
  t,
  at,
  ids,
  added,
  started,
  removed,
  add,
  start,
  recordParsed,
  recordIngested,
  recordFailed,
  remove,
  reingest,
} from './testing/store-file.fixtures';

describe('store file decider', () => {
  describe('AddStoreFile', () => {
    it('adds a file at generation 1, pending ingestion', () => {
      const { state } = given(storeFileDecider).when(add()).then(added(1));
      expect(state).toMatchObject({
        present: true,
        organizationId: ORG,
        generation: 1,
        status: 'pending',
        attempt: 0,
        metadata: { lang: 'en' },
        added: added(1).data,
      });
    });

    it('a copied file arrives completed, with the source’s artifacts', () => {
      const copiedFrom = {
        storeId: 'source',
        chunksKey: 'artifacts/chunks/c',
        vectorsKey: 'artifacts/vectors/v',
        model: 'm',
        chunkCount: 3,
        usageTokens: 40,
      };
      const { state } = given(storeFileDecider)
        .when({ ...(add() as Extract<StoreFileCommand, { type: 'AddStoreFile' }>), copiedFrom })
        .then(added(1, 0, copiedFrom));
      expect(state.status).toBe('completed');
    });

    it('refuses a file already in the store', () => {
      given(storeFileDecider, added())
        .when(add())
        .thenThrows(ConflictError, /already in store/);
    });

    it('in a bucket store, records the bucket, and its removal names the bucket and the generation removed', () => {
      const BUCKET = '44444444-4444-4444-8444-444444444444';
      const { events } = given(storeFileDecider, added(1), removed())
        .when({ ...(add() as Extract<StoreFileCommand, { type: 'AddStoreFile' }>), bucketId: BUCKET })
        .thenMatches({ type: 'StoreFileAdded', data: { generation: 2, bucketId: BUCKET } });
      given(storeFileDecider, added(1), removed(), ...events)
        .when(remove())
        .then({
          type: 'StoreFileRemoved',
          data: { ...ids, organizationId: ORG, reason: 'deleted', bucketId: BUCKET, generation: 2, at: at(30) },
        });
    });

    it('replaces a file in the store (other content or options) in one decision: its removal, then the add at the next generation', () => {
      const { state } = given(storeFileDecider, added(1), started())
        .when({ ...(add() as Extract<StoreFileCommand, { type: 'AddStoreFile' }>), replace: true })
        .then(removed('overwritten', 0), added(2));
      expect(state).toMatchObject({ present: true, generation: 2, status: 'pending', attempt: 0, workerId: null });
      // nothing to replace: a plain add
      given(storeFileDecider)
        .when({ ...(add() as Extract<StoreFileCommand, { type: 'AddStoreFile' }>), replace: true })
        .then(added(1));
    });

    it('re-adds a removed file at the next generation', () => {
      const { state } = given(storeFileDecider, added(1), started(), removed('overwritten'))
        .when(add())
        .thenMatches({ type: 'StoreFileAdded', data: { generation: 2 } });
      expect(state).toMatchObject({ present: true, generation: 2, status: 'pending', attempt: 0, workerId: null });
    });
  });

  describe('every command but AddStoreFile', () => {
    const commands: StoreFileCommand[] = [
      { type: 'UpdateStoreFileMetadata', ...ids, organizationId: ORG, metadata: {}, now: t(1) },
      start(),
      recordParsed(),
      recordIngested(),
      recordFailed(null),
      reingest(),
      remove(),
    ];
    it.each(commands.map((c) => [c.type, c] as const))('%s: a missing or removed file is not found', (_type, c) => {
      given(storeFileDecider).when(c).thenThrows(NotFoundError, `File ${FILE} not found in store ${STORE}`);
      given(storeFileDecider, added(), removed()).when(c).thenThrows(NotFoundError);
    });
    it.each(commands.map((c) => [c.type, c] as const))('%s: another organization’s file is not found', (_type, c) => {
      given(storeFileDecider, added())
        .when({ ...c, organizationId: OTHER_ORG })
        .thenThrows(NotFoundError);
    });
  });

  it('updates metadata', () => {
    const { state } = given(storeFileDecider, added())
      .when({ type: 'UpdateStoreFileMetadata', ...ids, organizationId: ORG, metadata: { lang: 'de' }, now: t(2) })
      .then({ type: 'StoreFileMetadataUpdated', data: { ...ids, metadata: { lang: 'de' }, at: at(2) } });
    expect(state).toEqual({ ...given(storeFileDecider, added()).state, metadata: { lang: 'de' } });
  });

  it('removes a file with its reason', () => {
    const { state } = given(storeFileDecider, added()).when(remove()).then(removed());
    expect(state).toMatchObject({ present: false, status: null });
  });
});

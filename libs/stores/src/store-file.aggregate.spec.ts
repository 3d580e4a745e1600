import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { IngestionSupersededError, StoreFileCommand, storeFileDecider } from './store-file.aggregate';
import { StoreFileAdded, StoreFileEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const STORE = '22222222-2222-4222-8222-222222222222';
const FILE = '33333333-3333-4333-8333-333333333333';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();

const content = {
  filename: 'guide.md',
  mimeType: 'text/markdown',
  bytes: 120,
  sha256: 'abc',
  blobKey: 'files/f1',
  fileVersion: 1,
};
const ids = { storeId: STORE, fileId: FILE };
const added = (generation = 1, s = 0, copiedFrom: StoreFileAdded['data']['copiedFrom'] = null): StoreFileEvent => ({
  type: 'StoreFileAdded',
  data: {
    ...ids,
    organizationId: ORG,
    ...content,
    metadata: { lang: 'en' },
    externalId: 'ext-1',
    parsingStrategy: 'fast',
    contextualization: false,
    copiedFrom,
    generation,
    at: at(s),
  },
});
const started = (generation = 1, attempt = 1, workerId = 'w1', s = 10, leaseS = 70): StoreFileEvent => ({
  type: 'StoreFileIngestionStarted',
  data: { ...ids, generation, attempt, workerId, leaseExpiresAt: at(leaseS), at: at(s) },
});
const parsed: StoreFileEvent = {
  type: 'StoreFileParsed',
  data: {
    ...ids,
    generation: 1,
    chunksKey: 'artifacts/chunks/c',
    chunkCount: 3,
    usageTokens: 40,
    parseMs: 5,
    at: at(11),
  },
};
const removed = (reason: 'deleted' | 'overwritten' = 'deleted', s = 30): StoreFileEvent => ({
  type: 'StoreFileRemoved',
  data: { ...ids, organizationId: ORG, reason, at: at(s) },
});
const ingestedData = {
  ...ids,
  generation: 1,
  filename: 'guide.md',
  chunksKey: 'artifacts/chunks/c',
  vectorsKey: 'artifacts/vectors/v',
  model: 'm',
  dimensions: 4,
  chunkCount: 3,
  usageTokens: 40,
  mode: 'fast' as const,
  contextualization: false,
  queueMs: 10_000,
  ingestionMs: 2_000,
  totalMs: 12_000,
};

const add = (organizationId = ORG): StoreFileCommand => ({
  type: 'AddStoreFile',
  ...ids,
  organizationId,
  ...content,
  metadata: { lang: 'en' },
  externalId: 'ext-1',
  parsingStrategy: 'fast',
  contextualization: false,
  now: t(0),
});
const start = (
  o: { generation?: number; workerId?: string; s?: number; organizationId?: string } = {},
): StoreFileCommand => ({
  type: 'StartIngestion',
  ...ids,
  organizationId: o.organizationId ?? ORG,
  generation: o.generation ?? 1,
  workerId: o.workerId ?? 'w1',
  leaseMs: 60_000,
  now: t(o.s ?? 10),
});
const recordParsed = (workerId = 'w1', generation = 1): StoreFileCommand => ({
  type: 'RecordParsed',
  ...ids,
  organizationId: ORG,
  generation,
  workerId,
  chunksKey: 'artifacts/chunks/c',
  chunkCount: 3,
  usageTokens: 40,
  parseMs: 5,
  now: t(11),
});
const recordIngested = (workerId = 'w1', generation = 1): StoreFileCommand => ({
  type: 'RecordIngested',
  organizationId: ORG,
  workerId,
  ...ingestedData,
  generation,
  now: t(12),
});
const recordFailed = (retryAt: Date | null, workerId = 'w1'): StoreFileCommand => ({
  type: 'RecordIngestionFailed',
  ...ids,
  organizationId: ORG,
  generation: 1,
  workerId,
  error: { message: 'parser crashed', code: 'parse_error' },
  retryAt,
  now: t(12),
});
const cancel = (organizationId = ORG): StoreFileCommand => ({
  type: 'CancelStoreFileIngestion',
  ...ids,
  organizationId,
  now: t(20),
});
const cancelled = (generation = 1): StoreFileEvent => ({
  type: 'StoreFileIngestionCancelled',
  data: { ...ids, organizationId: ORG, generation, at: at(20) },
});
const remove = (organizationId = ORG): StoreFileCommand => ({
  type: 'RemoveStoreFile',
  ...ids,
  organizationId,
  reason: 'deleted',
  now: t(30),
});
const reingest = (organizationId = ORG): StoreFileCommand => ({
  type: 'ReingestStoreFile',
  ...ids,
  organizationId,
  filename: 'guide.md',
  externalId: 'ext-2',
  metadata: { lang: 'fr' },
  billable: false,
  now: t(40),
});

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

  describe('ingestion', () => {
    it('a worker takes a pending file with a lease and attempt 1', () => {
      const { state } = given(storeFileDecider, added())
        .when(start())
        .then(started(1, 1, 'w1', 10, 70));
      expect(state).toMatchObject({ status: 'in_progress', attempt: 1, workerId: 'w1', leaseExpiresAt: t(70) });
    });

    it('another worker cannot take a leased file, but takes it over once the lease ran out', () => {
      given(storeFileDecider, added(), started())
        .when(start({ workerId: 'w2', s: 69 }))
        .thenThrows(IngestionSupersededError, /not waiting for ingestion/);
      given(storeFileDecider, added(), started())
        .when(start({ workerId: 'w2', s: 71 }))
        .then(started(1, 2, 'w2', 71, 131));
    });

    it('refuses a stale generation and a completed or failed file', () => {
      const ingested: StoreFileEvent = { type: 'StoreFileIngested', data: { ...ingestedData, at: at(12) } };
      const failed: StoreFileEvent = {
        type: 'StoreFileIngestionFailed',
        data: { ...ids, generation: 1, attempt: 1, error: { message: 'x', code: 'y' }, retryAt: null, at: at(12) },
      };
      given(storeFileDecider, added())
        .when(start({ generation: 2 }))
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started(), ingested)
        .when(start({ s: 100 }))
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started(), failed)
        .when(start({ s: 100 }))
        .thenThrows(IngestionSupersededError);
      // IngestionSupersededError is a ConflictError (409 if it ever reached HTTP)
      given(storeFileDecider, added(), started(), failed)
        .when(start({ s: 100 }))
        .thenThrows(ConflictError);
    });

    it('records parsing and completion from the lease holder', () => {
      const { state } = given(storeFileDecider, added(), started()).when(recordParsed()).then(parsed);
      expect(state.parsed).toEqual({ chunksKey: 'artifacts/chunks/c', chunkCount: 3, usageTokens: 40 });
      const done = given(storeFileDecider, added(), started(), parsed)
        .when(recordIngested())
        .then({ type: 'StoreFileIngested', data: { ...ingestedData, at: at(12) } });
      expect(done.state).toMatchObject({ status: 'completed', workerId: null, leaseExpiresAt: null });
    });

    it('refuses results from a worker that does not hold the lease, of another generation, or when not in progress', () => {
      given(storeFileDecider, added(), started())
        .when(recordParsed('w2'))
        .thenThrows(IngestionSupersededError, /superseded/);
      given(storeFileDecider, added(), started()).when(recordIngested('w2')).thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started()).when(recordFailed(null, 'w2')).thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started()).when(recordParsed('w1', 2)).thenThrows(IngestionSupersededError);
      given(storeFileDecider, added()).when(recordIngested()).thenThrows(IngestionSupersededError);
      // after a takeover, the first worker's late results are refused
      given(storeFileDecider, added(), started(), started(1, 2, 'w2', 71, 131))
        .when(recordIngested('w1'))
        .thenThrows(IngestionSupersededError);
    });

    it('a failure with a retry time goes back to pending; without one the file has failed', () => {
      const retry = given(storeFileDecider, added(), started())
        .when(recordFailed(t(20)))
        .then({
          type: 'StoreFileIngestionFailed',
          data: {
            ...ids,
            generation: 1,
            attempt: 1,
            error: { message: 'parser crashed', code: 'parse_error' },
            retryAt: at(20),
            at: at(12),
          },
        });
      expect(retry.state).toMatchObject({ status: 'pending', workerId: null, attempt: 1 });
      // the retry is attempt 2
      given(storeFileDecider, added(), started(), ...retry.events)
        .when(start({ s: 21 }))
        .thenMatches({ type: 'StoreFileIngestionStarted', data: { attempt: 2 } });
      const failed = given(storeFileDecider, added(), started())
        .when(recordFailed(null))
        .thenMatches({ type: 'StoreFileIngestionFailed', data: { retryAt: null } });
      expect(failed.state.status).toBe('failed');
    });

    it('re-ingestion starts a new generation and supersedes the running one', () => {
      const { state, events } = given(storeFileDecider, added(), started(), parsed)
        .when(reingest())
        .then({
          type: 'StoreFileReingestionRequested',
          data: {
            ...ids,
            organizationId: ORG,
            generation: 2,
            filename: 'guide.md',
            externalId: 'ext-2',
            metadata: { lang: 'fr' },
            billable: false,
            at: at(40),
          },
        });
      expect(state).toMatchObject({
        generation: 2,
        status: 'pending',
        attempt: 0,
        parsed: null,
        workerId: null,
        metadata: { lang: 'fr' },
        added: { ...added(1).data, externalId: 'ext-2' },
      });
      given(storeFileDecider, added(), started(), parsed, ...events)
        .when(recordIngested('w1', 1))
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started(), parsed, ...events)
        .when(start({ generation: 2, s: 41 }))
        .thenMatches({ type: 'StoreFileIngestionStarted', data: { generation: 2, attempt: 1 } });
    });
  });

  describe('CancelStoreFileIngestion (a file batch was cancelled)', () => {
    it('cancels a waiting or running file; the file stays, cancelled', () => {
      const { state } = given(storeFileDecider, added()).when(cancel()).then(cancelled());
      expect(state).toMatchObject({ present: true, status: 'cancelled', workerId: null, leaseExpiresAt: null });
      given(storeFileDecider, added(), started(), parsed).when(cancel()).then(cancelled());
    });

    it('leaves a finished file as it is, and cancels once', () => {
      given(storeFileDecider, added(), started(), parsed, {
        type: 'StoreFileIngested',
        data: { ...ingestedData, at: at(12) },
      })
        .when(cancel())
        .thenNothing();
      given(storeFileDecider, added(), cancelled()).when(cancel()).thenNothing();
      given(storeFileDecider, added()).when(cancel(OTHER_ORG)).thenThrows(NotFoundError);
    });

    it('refuses the worker’s later results and a new claim: nothing of a cancelled ingestion is recorded', () => {
      given(storeFileDecider, added(), started(), cancelled())
        .when(recordParsed())
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started(), parsed, cancelled())
        .when(recordIngested())
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), cancelled()).when(start()).thenThrows(IngestionSupersededError);
    });

    it('a cancelled file added again is ingested at the next generation', () => {
      given(storeFileDecider, added(), cancelled(), removed('overwritten', 21))
        .when(add())
        .thenMatches({ type: 'StoreFileAdded', data: { generation: 2 } });
    });

    it('records a chosen chunk size with the file, and only when there is one', () => {
      const { events } = given(storeFileDecider)
        .when({
          ...(add() as Extract<StoreFileCommand, { type: 'AddStoreFile' }>),
          chunking: { maxTokens: 200, overlapTokens: 20 },
        })
        .thenMatches({ type: 'StoreFileAdded', data: { chunking: { maxTokens: 200, overlapTokens: 20 } } });
      expect(events).toHaveLength(1);
      const plain = given(storeFileDecider).when(add()).thenMatches({ type: 'StoreFileAdded' });
      expect('chunking' in plain.events[0].data).toBe(false);
    });
  });

  describe('RenewIngestionLease (short leases, renewed while work runs)', () => {
    const renew = (workerId = 'w1', sec = 20, generation = 1): StoreFileCommand => ({
      type: 'RenewIngestionLease',
      ...ids,
      organizationId: ORG,
      generation,
      workerId,
      leaseMs: 30_000,
      now: t(sec),
    });

    it('extends the holder’s lease from now', () => {
      const { state } = given(storeFileDecider, added(), started())
        .when(renew())
        .then({
          type: 'StoreFileIngestionLeaseRenewed',
          data: { ...ids, generation: 1, workerId: 'w1', leaseExpiresAt: at(50), at: at(20) },
        });
      expect(state.leaseExpiresAt).toEqual(t(50));
      expect(state.status).toBe('in_progress');
    });

    it('is refused to another worker, an old generation, and once the work is recorded', () => {
      given(storeFileDecider, added(), started()).when(renew('w2')).thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started())
        .when(renew('w1', 20, 2))
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started(), parsed, {
        type: 'StoreFileIngested',
        data: { ...ingestedData, at: at(12) },
      })
        .when(renew())
        .thenThrows(IngestionSupersededError);
    });

    it('a renewed lease keeps a second worker out until it expires', () => {
      const renewed: StoreFileEvent = {
        type: 'StoreFileIngestionLeaseRenewed',
        data: { ...ids, generation: 1, workerId: 'w1', leaseExpiresAt: at(90), at: at(60) },
      };
      given(storeFileDecider, added(), started(), renewed)
        .when(start({ workerId: 'w2', s: 80 }))
        .thenThrows(IngestionSupersededError);
      given(storeFileDecider, added(), started(), renewed)
        .when(start({ workerId: 'w2', s: 91 }))
        .thenMatches({ type: 'StoreFileIngestionStarted', data: { workerId: 'w2', attempt: 2 } });
    });
  });
});

/** Store-file decider: ingestion leases and results, re-ingestion, cancellation and lease renewal. */
import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { IngestionSupersededError, StoreFileCommand, storeFileDecider } from './store-file.aggregate';
import { StoreFileEvent } from './events';
import {
  ORG,
  OTHER_ORG,
  t,
  at,
  ids,
  added,
  started,
  parsed,
  removed,
  ingestedData,
  add,
  start,
  recordParsed,
  recordIngested,
  recordFailed,
  cancel,
  cancelled,
  reingest,
} from './testing/store-file.fixtures';

describe('store file decider', () => {
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

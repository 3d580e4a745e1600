import type { EntityManager } from 'typeorm';
import { RecordedEvent } from '../events';
import { TestEventLog } from './event-log.testing';
import { projectionTestDatabase, ProjectionUnderTest } from './projection.testing';

/** A toy read model: one row per counter; how `apply` treats a repeat is what each case varies. */
function counterProjection(
  name: string,
  apply: (e: RecordedEvent, m: EntityManager) => Promise<void>,
): ProjectionUnderTest {
  return {
    name,
    handles: ['Counted'],
    tables: ['counters_t1'],
    setup: async (m) =>
      void (await m.query(
        `CREATE TABLE IF NOT EXISTS counters_t1 (id text PRIMARY KEY, total int NOT NULL, previous int, revision bigint NOT NULL)`,
      )),
    apply,
  };
}
const upsert = `INSERT INTO counters_t1 (id, total, previous, revision) VALUES ($1, $2, NULL, $3)`;

const log = new TestEventLog();
log.append('counter-a', { orgId: 'o' }, { type: 'Counted', data: { n: 1 } }, { type: 'Counted', data: { n: 2 } });
log.append('counter-b', { orgId: 'o' }, { type: 'Counted', data: { n: 5 } }, { type: 'Ignored', data: {} });
const n = (e: RecordedEvent) => (e.data as { n: number }).n;

describe('projection harness', () => {
  const pg = projectionTestDatabase();

  it('answers the rows of an idempotent projection, in key order, and skips events it does not handle', async () => {
    const guarded = counterProjection('guarded', async (e, m) => {
      await m.query(
        `${upsert} ON CONFLICT (id) DO UPDATE SET total = counters_t1.total + EXCLUDED.total, revision = EXCLUDED.revision WHERE counters_t1.revision < EXCLUDED.revision`,
        [e.streamId, n(e), e.revision],
      );
    });
    expect(await pg.project(guarded, log.events)).toEqual({
      counters_t1: [
        { id: 'counter-a', total: 3, previous: null, revision: '1' },
        { id: 'counter-b', total: 5, previous: null, revision: '0' },
      ],
    });
  });

  it('fails a projection that counts a re-applied event again', async () => {
    const inc = counterProjection('inc', async (e, m) => {
      await m.query(
        `${upsert} ON CONFLICT (id) DO UPDATE SET total = counters_t1.total + EXCLUDED.total, revision = EXCLUDED.revision`,
        [e.streamId, n(e), e.revision],
      );
    });
    await expect(pg.project(inc, log.events)).rejects.toThrow(
      'projection inc is not idempotent: re-applying the whole log on top changed its rows',
    );
  });

  it('fails a projection whose rows depend on an event arriving twice in a row', async () => {
    // Re-applying the whole log ends where it started; an event delivered twice at once does not.
    const previous = counterProjection('previous', async (e, m) => {
      await m.query(
        `${upsert} ON CONFLICT (id) DO UPDATE SET previous = counters_t1.total, total = EXCLUDED.total, revision = EXCLUDED.revision`,
        [e.streamId, n(e), e.revision],
      );
    });
    await expect(pg.project(previous, log.events.slice(0, 2))).rejects.toThrow(
      'projection previous is not idempotent: applying each event twice in a row gave other rows',
    );
  });

  it('names the event a projection fails on', async () => {
    const failing = counterProjection('failing', async (e) => {
      if (n(e) === 2) throw new Error('boom');
    });
    await expect(pg.project(failing, log.events)).rejects.toThrow(
      'projection failing failed on Counted (counter-a@1, log #2) during the first pass: boom',
    );
  });

  it('gives every project() call fresh tables', async () => {
    const plain = counterProjection(
      'plain',
      async (e, m) => void (await m.query(`${upsert} ON CONFLICT (id) DO NOTHING`, [e.streamId, n(e), e.revision])),
    );
    expect((await pg.project(plain, log.events.slice(0, 1))).counters_t1).toHaveLength(1);
    expect((await pg.project(plain, log.events.slice(2, 3))).counters_t1).toEqual([
      { id: 'counter-b', total: 5, previous: null, revision: '0' },
    ]);
  });
});

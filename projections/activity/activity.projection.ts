import { EntityManager } from 'typeorm';
import { jsonbParameter, RecordedEvent } from '@larder/kernel';
import { ACTIVITY_EVENT_TYPES, ActivityRecorded } from '@larder/activity/events';
import { Projection } from '../runner/projection';
import { ACTIVITY_TABLE as T } from './activity.tables';

/** Rows per INSERT statement (6 parameters each, far below Postgres's 65,535). */
const ROWS_PER_INSERT = 500;

/**
 * `activity`: an index over the organizations' activity streams (`activity-<org>`) for the event
 * listings and histograms: one row per entry, keyed by the entry's id (replays are no-ops).
 */
export class ActivityProjection implements Projection {
  readonly name = 'activity';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = [...ACTIVITY_EVENT_TYPES];

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, kind text NOT NULL, store_ids uuid[] NOT NULL,
      created_at timestamptz NOT NULL, event jsonb NOT NULL)`);
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${T}_org_kind_time ON ${T} (organization_id, kind, created_at DESC, id DESC)`,
    );
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_stores ON ${T} USING gin (store_ids)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    await this.applyBatch([event], m);
  }

  /** One INSERT for the entries of a batch (a busy organization records hundreds per batch). */
  async applyBatch(events: RecordedEvent[], m: EntityManager): Promise<void> {
    const rows = events
      .filter((e) => e.type === 'ActivityRecorded')
      .map((e) => e.data as unknown as ActivityRecorded['data']);
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const part = rows.slice(i, i + ROWS_PER_INSERT);
      const params: unknown[] = [];
      const values = part.map((d) => {
        const n = params.push(d.activityId, d.organizationId, d.kind, d.storeIds, d.at, jsonbParameter(d.event));
        return `($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}::uuid[], $${n - 1}, $${n})`;
      });
      await m.query(
        `INSERT INTO ${T} (id, organization_id, kind, store_ids, created_at, event) VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING`,
        params,
      );
    }
  }
}

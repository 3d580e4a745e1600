import { EntityManager } from 'typeorm';
import { RecordedEvent } from '@larder/kernel';
import { ACTIVITY_EVENT_TYPES, ActivityRecorded } from '@larder/activity/events';
import { Projection } from '../runner/projection';
import { ACTIVITY_TABLE as T } from './activity.tables';

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
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_org_kind_time ON ${T} (organization_id, kind, created_at DESC, id DESC)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_stores ON ${T} USING gin (store_ids)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    if (event.type !== 'ActivityRecorded') return;
    const d = (event.data as unknown as ActivityRecorded['data']);
    await m.query(`INSERT INTO ${T} (id, organization_id, kind, store_ids, created_at, event) VALUES ($1, $2, $3, $4::uuid[], $5, $6) ON CONFLICT (id) DO NOTHING`, [
      d.activityId,
      d.organizationId,
      d.kind,
      d.storeIds,
      d.at,
      JSON.stringify(d.event),
    ]);
  }
}

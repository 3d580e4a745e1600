import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent, positionToString } from '@larder/kernel';
import { TRACE_DESTINATION_EVENT_TYPES, TraceDestinationEvent } from '@larder/trace-destinations/events';
import { Projection } from '../runner/projection';
import { TRACE_DESTINATIONS_TABLE as T } from './trace-destinations.tables';

/**
 * `trace-destinations`: one row per live destination (no credentials: only their vault reference),
 * with the log position it was created at, so that the export reactor sends a destination only the
 * runs that finished after it existed. Rows are guarded by the stream revision.
 */
export class TraceDestinationsProjection implements Projection {
  readonly name = 'trace-destinations';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = TRACE_DESTINATION_EVENT_TYPES;

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY,
      organization_id text NOT NULL,
      name text NOT NULL,
      kind text NOT NULL,
      target jsonb NOT NULL,
      enabled boolean NOT NULL,
      trace_kinds text[] NOT NULL,
      credentials_ref text,
      credentials_version int NOT NULL,
      credentials_updated_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_position text NOT NULL,
      revision bigint NOT NULL
    )`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_org_created ON ${T} (organization_id, created_at DESC, id DESC)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<TraceDestinationEvent>(event);
    const rev = event.revision;
    switch (e.type) {
      case 'TraceDestinationCreated': {
        const d = e.data;
        await m.query(
          `INSERT INTO ${T} (id, organization_id, name, kind, target, enabled, trace_kinds, credentials_ref, credentials_version, credentials_updated_at, created_at, updated_at, created_position, revision)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
          [
            d.destinationId,
            d.organizationId,
            d.name,
            d.target.kind,
            JSON.stringify(d.target),
            d.enabled,
            d.traceKinds,
            d.credentialsRef,
            d.credentialsVersion,
            d.createdAt,
            positionToString(event.position),
            rev,
          ],
        );
        return;
      }
      case 'TraceDestinationUpdated': {
        const d = e.data;
        const rotated = d.credentialsRef !== undefined;
        await m.query(
          `UPDATE ${T} SET name = COALESCE($2, name), enabled = COALESCE($3, enabled), trace_kinds = COALESCE($4, trace_kinds), target = COALESCE($5::jsonb, target),
                  credentials_ref = CASE WHEN $6::boolean THEN $7 ELSE credentials_ref END,
                  credentials_version = COALESCE($8, credentials_version),
                  credentials_updated_at = CASE WHEN $6::boolean THEN $9::timestamptz ELSE credentials_updated_at END,
                  updated_at = $9, revision = $10
            WHERE id = $1 AND revision < $10`,
          [
            d.destinationId,
            d.name ?? null,
            d.enabled ?? null,
            d.traceKinds ?? null,
            d.target ? JSON.stringify(d.target) : null,
            rotated,
            d.credentialsRef ?? null,
            d.credentialsVersion ?? null,
            d.updatedAt,
            rev,
          ],
        );
        return;
      }
      case 'TraceDestinationDeleted':
        await m.query(`DELETE FROM ${T} WHERE id = $1`, [e.data.destinationId]);
        return;
    }
  }
}

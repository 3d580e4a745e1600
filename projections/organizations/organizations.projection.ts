import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import { ORGANIZATION_EVENT_TYPES, OrganizationEvent } from '@larder/organizations/events';
import { Projection } from '../runner/projection';
import { ORGANIZATIONS_TABLE as T } from './organizations.tables';

export class OrganizationsProjection implements Projection {
  readonly name = 'organizations';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = ORGANIZATION_EVENT_TYPES;

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY, name text NOT NULL, root boolean NOT NULL, created_at timestamptz NOT NULL, revision bigint NOT NULL)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<OrganizationEvent>(event);
    if (e.type === 'OrganizationCreated') {
      await m.query(
        `INSERT INTO ${T} (id, name, root, created_at, revision) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
        [e.data.organizationId, e.data.name, e.data.root, e.data.createdAt, event.revision],
      );
    }
  }
}

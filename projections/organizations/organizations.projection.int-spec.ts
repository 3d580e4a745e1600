import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { organizationDecider } from '@larder/organizations/organization.aggregate';
import { organizationStream } from '@larder/organizations/streams';
import { OrganizationsProjection } from './organizations.projection';
import { ORGANIZATIONS_TABLE } from './organizations.tables';

const ROOT = '11111111-1111-4111-8111-111111111111';
const ACME = '22222222-2222-4222-8222-222222222222';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('organizations projection', () => {
  const pg = projectionTestDatabase();

  it('one row per organization, root flagged', async () => {
    const log = new TestEventLog();
    log.decide(
      organizationDecider,
      organizationStream(ROOT),
      { type: 'CreateOrganization', organizationId: ROOT, name: 'root', root: true, now: t(0) },
      { orgId: ROOT, actor: 'system' },
    );
    log.decide(
      organizationDecider,
      organizationStream(ACME),
      { type: 'CreateOrganization', organizationId: ACME, name: 'acme', root: false, now: t(5) },
      { orgId: ACME, actor: 'cli' },
    );
    const rows = await pg.project(new OrganizationsProjection(), log.events);
    expect(rows[ORGANIZATIONS_TABLE]).toEqual([
      { id: ROOT, name: 'root', root: true, created_at: t(0), revision: '0' },
      { id: ACME, name: 'acme', root: false, created_at: t(5), revision: '0' },
    ]);
  });

  it('no events, no rows', async () => {
    expect(await pg.project(new OrganizationsProjection(), [])).toEqual({ [ORGANIZATIONS_TABLE]: [] });
  });
});

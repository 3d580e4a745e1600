import { ConflictError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { organizationDecider } from './organization.aggregate';
import { OrganizationEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const t = new Date(Date.UTC(2026, 0, 1));
const created: OrganizationEvent = {
  type: 'OrganizationCreated',
  data: { organizationId: ORG, name: 'acme', root: false, createdAt: t.toISOString() },
};

describe('organization decider', () => {
  it('creates an organization', () => {
    const { state } = given(organizationDecider)
      .when({ type: 'CreateOrganization', organizationId: ORG, name: 'acme', root: false, now: t })
      .then(created);
    expect(state).toEqual({ exists: true, name: 'acme' });
  });

  it('creates the root organization', () => {
    given(organizationDecider)
      .when({ type: 'CreateOrganization', organizationId: ORG, name: 'root', root: true, now: t })
      .then({
        type: 'OrganizationCreated',
        data: { organizationId: ORG, name: 'root', root: true, createdAt: t.toISOString() },
      });
  });

  it('refuses to create it twice', () => {
    given(organizationDecider, created)
      .when({ type: 'CreateOrganization', organizationId: ORG, name: 'other', root: false, now: t })
      .thenThrows(ConflictError, `organization ${ORG} already exists`);
  });
});

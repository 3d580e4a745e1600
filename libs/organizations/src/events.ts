export interface OrganizationCreated {
  type: 'OrganizationCreated';
  data: { organizationId: string; name: string; root: boolean; createdAt: string };
}
export type OrganizationEvent = OrganizationCreated;
export const ORGANIZATION_EVENT_TYPES = ['OrganizationCreated'] as const;

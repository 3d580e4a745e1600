import { ConflictError, Decider } from '@larder/kernel';
import { OrganizationEvent } from './events';

export interface OrganizationState {
  exists: boolean;
  name: string | null;
}

export interface CreateOrganization {
  type: 'CreateOrganization';
  organizationId: string;
  name: string;
  root: boolean;
  now: Date;
}
export type OrganizationCommand = CreateOrganization;

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ exists: false, name: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'OrganizationCreated':
        return { exists: true, name: event.data.name };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateOrganization':
        if (state.exists) throw new ConflictError(`organization ${command.organizationId} already exists`);
        return [
          {
            type: 'OrganizationCreated',
            data: {
              organizationId: command.organizationId,
              name: command.name,
              root: command.root,
              createdAt: command.now.toISOString(),
            },
          },
        ];
    }
  },
};

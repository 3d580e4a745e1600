import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '@larder/kernel';
import { Writes, commandHandler } from '@larder/event-store';
import { OrganizationCommand, organizationDecider } from '../../organization.aggregate';
import { organizationStream } from '../../streams';
import { CreateOrganizationCommand } from './create-organization.command';

export interface OrganizationCreatedResult {
  organizationId: string;
  created: boolean;
}

const handleOrganization = commandHandler(organizationDecider, (c: OrganizationCommand) =>
  organizationStream(c.organizationId),
);

@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<
  CreateOrganizationCommand,
  OrganizationCreatedResult
> {
  constructor(private readonly writes: Writes) {}

  async execute(command: CreateOrganizationCommand): Promise<OrganizationCreatedResult> {
    const organizationId = command.options.organizationId ?? this.writes.ids.uuid();
    try {
      const result = await this.writes.run(
        handleOrganization,
        {
          type: 'CreateOrganization',
          organizationId,
          name: command.name,
          root: !!command.options.root,
          now: this.writes.now(),
        },
        { orgId: organizationId, actor: command.options.actor ?? 'system' },
        { retries: 0 },
      );
      await this.writes.settle(['organizations'], result.position);
      return { organizationId, created: true };
    } catch (err) {
      // A fixed id (the root organization) that already exists: creating it again is a no-op.
      if (err instanceof ConflictError && command.options.organizationId) return { organizationId, created: false };
      throw err;
    }
  }
}

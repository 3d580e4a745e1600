import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, READ_MODEL_CONSISTENCY, ReadModelConsistency, ConflictError, settle } from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { organizationDecider } from '../../organization.aggregate';
import { organizationStream } from '../../streams';
import { CreateOrganizationCommand } from './create-organization.command';

export interface OrganizationCreatedResult {
  organizationId: string;
  created: boolean;
}

@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganizationCommand, OrganizationCreatedResult> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
  ) {}

  async execute(command: CreateOrganizationCommand): Promise<OrganizationCreatedResult> {
    const organizationId = command.options.organizationId ?? this.ids.uuid();
    try {
      const result = await handleCommand(
        this.store,
        organizationStream(organizationId),
        organizationDecider,
        { type: 'CreateOrganization', organizationId, name: command.name, root: !!command.options.root, now: this.clock.now() },
        { orgId: organizationId, actor: command.options.actor ?? 'system' },
        { retries: 0 },
      );
      await settle(this.consistency, ['organizations'], result.position);
      return { organizationId, created: true };
    } catch (err) {
      // A fixed id (the root organization) that already exists: creating it again is a no-op.
      if (err instanceof ConflictError && command.options.organizationId) return { organizationId, created: false };
      throw err;
    }
  }
}

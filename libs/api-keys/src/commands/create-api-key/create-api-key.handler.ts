import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, READ_MODEL_CONSISTENCY, ReadModelConsistency, settle, ValidationFailedError } from '@larder/kernel';
import { EVENT_STORE, EventStore } from '@larder/event-store';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { apiKeyView } from '../../api-key.aggregate';
import { handleApiKey } from '../../api-key.writer';
import { hashSecret, redact, SECRET_PREFIX } from '../../secrets';
import { ApiKeyCreatedResponse, toApiKeyResponse } from '../../api-key.response';
import { CreateApiKeyCommand } from './create-api-key.command';

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand, ApiKeyCreatedResponse> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
    private readonly reader: ApiKeysReader,
  ) {}

  async execute(c: CreateApiKeyCommand): Promise<ApiKeyCreatedResponse> {
    const now = this.clock.now();
    if (c.expiresAt && c.expiresAt.getTime() <= now.getTime()) {
      throw new ValidationFailedError([{ loc: ['body', 'expires_at'], msg: 'expires_at must be in the future', type: 'value_error', input: c.expiresAt.toISOString() }]);
    }
    const apiKeyId = c.options.apiKeyId ?? this.ids.uuid();
    const secret = c.options.secret ?? `${SECRET_PREFIX}${this.ids.secret(32)}`;
    const result = await handleApiKey(
      this.store,
      {
        type: 'CreateApiKey',
        apiKeyId,
        organizationId: c.organizationId,
        name: c.name,
        secretHash: hashSecret(secret),
        redactedValue: redact(secret),
        scope: c.scope,
        expiresAt: c.expiresAt,
        admin: !!c.options.admin,
        now,
      },
      { orgId: c.organizationId, actor: c.options.actor ?? 'system' },
      { retries: 0, newIds: () => this.ids.uuid() },
    );
    // stored: from here on the key exists, whether or not its read model has caught up
    const row = (await settle(this.consistency, ['api-keys'], result.position)) ? await this.reader.get(c.organizationId, apiKeyId) : null;
    return { ...toApiKeyResponse(row ?? apiKeyView(apiKeyId, result.state)), value: secret };
  }
}

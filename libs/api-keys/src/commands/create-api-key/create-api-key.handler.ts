import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ValidationFailedError } from '@larder/kernel';
import { Writes } from '@larder/event-store';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import type { ScopeEntry } from '@larder/kernel';
import { apiKeyView } from '../../api-key.aggregate';
import { handleApiKey } from '../../api-key.writer';
import { hashSecret, newSecret, redact } from '../../secrets';
import { ApiKeyCreatedResponse, toApiKeyResponse } from '../../api-key.response';
import { CreateApiKeyCommand } from './create-api-key.command';

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand, ApiKeyCreatedResponse> {
  constructor(
    private readonly writes: Writes,
    private readonly reader: ApiKeysReader,
    private readonly stores: StoresReader,
  ) {}

  /** Store scopes are pinned to store ids: a name is resolved now, so a store that later takes the name gains nothing. */
  private async pinStores(organizationId: string, scope: ScopeEntry[] | null): Promise<ScopeEntry[] | null> {
    if (!scope) return scope;
    const out: ScopeEntry[] = [];
    for (const [i, e] of scope.entries()) {
      if (e.resource_id == null || (e.resource_type != null && e.resource_type !== 'store')) {
        out.push(e);
        continue;
      }
      const store = await this.stores.resolve(organizationId, e.resource_id);
      if (store) out.push({ ...e, resource_id: store.id });
      else if (e.resource_type == null)
        out.push(e); // pinned to another kind of resource (a file id)
      else
        throw new ValidationFailedError([
          {
            loc: ['body', 'scope', i, 'resource_id'],
            msg: `Store ${e.resource_id} not found`,
            type: 'value_error',
            input: e.resource_id,
          },
        ]);
    }
    return out;
  }

  async execute(c: CreateApiKeyCommand): Promise<ApiKeyCreatedResponse> {
    const now = this.writes.now();
    if (c.expiresAt && c.expiresAt.getTime() <= now.getTime()) {
      throw new ValidationFailedError([
        {
          loc: ['body', 'expires_at'],
          msg: 'expires_at must be in the future',
          type: 'value_error',
          input: c.expiresAt.toISOString(),
        },
      ]);
    }
    const scope = await this.pinStores(c.organizationId, c.scope);
    const apiKeyId = c.options.apiKeyId ?? this.writes.ids.uuid();
    const secret = c.options.secret ?? newSecret(this.writes.ids);
    const result = await this.writes.run(
      handleApiKey,
      {
        type: 'CreateApiKey',
        apiKeyId,
        organizationId: c.organizationId,
        name: c.name,
        secretHash: hashSecret(secret),
        redactedValue: redact(secret),
        scope,
        expiresAt: c.expiresAt,
        admin: !!c.options.admin,
        now,
      },
      { orgId: c.organizationId, actor: c.options.actor ?? 'system' },
      { retries: 0 },
    );
    // stored: from here on the key exists, whether or not its read model has caught up
    const row = (await this.writes.settle(['api-keys'], result.position))
      ? await this.reader.get(c.organizationId, apiKeyId)
      : null;
    return { ...toApiKeyResponse(row ?? apiKeyView(apiKeyId, result.state)), value: secret };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, NotFoundError, isUuid } from '@larder/kernel';
import { commandHandler, Writes } from '@larder/event-store';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { ApiKeyCommand, apiKeyDecider, apiKeyView } from './api-key.aggregate';
import { apiKeyStream } from './streams';
import { UnsettledKeyChanges } from './auth/unsettled-key-changes';
import { ApiKeyResponse, toApiKeyResponse } from './api-key.response';

type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> : never;

/** One decider bound to its stream: every write to an API key goes through it. */
export const handleApiKey = commandHandler(apiKeyDecider, (c: ApiKeyCommand) => apiKeyStream(c.apiKeyId));

/**
 * Runs one decision on an existing key and returns the key as now stored: from the read model once it
 * has caught up, else from the decided state (the write is stored; the response says reads may lag).
 */
@Injectable()
export class ApiKeyWriter {
  constructor(
    private readonly writes: Writes,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(ID_GENERATOR) readonly ids: IdGenerator,
    private readonly reader: ApiKeysReader,
    private readonly unsettled: UnsettledKeyChanges,
  ) {}

  async decide(command: WithoutClock<ApiKeyCommand>, actor: string): Promise<{ response: ApiKeyResponse | null }> {
    if (!isUuid(command.apiKeyId)) throw new NotFoundError(`API key ${command.apiKeyId} not found`);
    const result = await this.writes.run(handleApiKey, { ...command, now: this.writes.now() }, { orgId: command.organizationId, actor });
    const settled = await this.writes.settle(['api-keys'], result.position);
    // a late read model must not let a revoked, rerolled or deleted key through: the guard checks this too
    if (!settled && result.position && result.revision !== undefined) {
      this.unsettled.note(command.apiKeyId, result.revision, result.state, command.type === 'RerollApiKey' ? command.secretHash : undefined);
    }
    if (result.state.status === 'deleted') return { response: null };
    if (settled) {
      const row = await this.reader.get(command.organizationId, command.apiKeyId);
      if (row) return { response: toApiKeyResponse(row) };
    }
    return { response: toApiKeyResponse(apiKeyView(command.apiKeyId, result.state)) };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, NotFoundError, isUuid } from '@larder/kernel';
import { commandHandler, CommandWriter, WithoutClock, Writes } from '@larder/event-store';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { ApiKeyCommand, apiKeyDecider, ApiKeyState, apiKeyView } from './api-key.aggregate';
import { apiKeyStream } from './streams';
import { UnsettledKeyChanges } from './auth/unsettled-key-changes';
import { ApiKeyResponse, toApiKeyResponse } from './api-key.response';

/** One decider bound to its stream: every write to an API key goes through it. */
export const handleApiKey = commandHandler(apiKeyDecider, (c: ApiKeyCommand) => apiKeyStream(c.apiKeyId));

/**
 * Runs one decision on an existing key and returns the key as now stored: from the read model once it
 * has caught up, else from the decided state (the write is stored; the response says reads may lag).
 */
@Injectable()
export class ApiKeyWriter {
  private readonly keys: CommandWriter<ApiKeyState, ApiKeyCommand>;

  constructor(
    writes: Writes,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(ID_GENERATOR) readonly ids: IdGenerator,
    private readonly reader: ApiKeysReader,
    private readonly unsettled: UnsettledKeyChanges,
  ) {
    this.keys = writes.writer(handleApiKey, ['api-keys']);
  }

  async decide(command: WithoutClock<ApiKeyCommand>, actor: string): Promise<{ response: ApiKeyResponse | null }> {
    if (!isUuid(command.apiKeyId)) throw new NotFoundError(`API key ${command.apiKeyId} not found`);
    const decided = await this.keys.decide(command, actor);
    // a late read model must not let a revoked, rerolled or deleted key through: the guard checks this too
    if (!decided.settled && decided.position && decided.revision !== undefined) {
      this.unsettled.note(
        command.apiKeyId,
        decided.revision,
        decided.state,
        command.type === 'RerollApiKey' ? command.secretHash : undefined,
      );
    }
    if (decided.state.status === 'deleted') return { response: null };
    const view = await this.keys.read(
      decided,
      () => this.reader.get(command.organizationId, command.apiKeyId),
      (s) => apiKeyView(command.apiKeyId, s),
    );
    return { response: toApiKeyResponse(view) };
  }
}

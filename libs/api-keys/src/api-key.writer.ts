import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, READ_MODEL_CONSISTENCY, ReadModelConsistency, NotFoundError } from '@larder/kernel';
import { EVENT_STORE, EventStore, handleCommand } from '@larder/event-store';
import { ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { ApiKeyCommand, apiKeyDecider } from './api-key.aggregate';
import { apiKeyStream } from './streams';
import { ApiKeyResponse, toApiKeyResponse } from './api-key.response';

type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> : never;

/** Runs one decision on an existing key, waits for the read model, and returns the key as now stored. */
@Injectable()
export class ApiKeyWriter {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(ID_GENERATOR) readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) private readonly consistency: ReadModelConsistency,
    private readonly reader: ApiKeysReader,
  ) {}

  async decide(command: WithoutClock<ApiKeyCommand>, actor: string): Promise<{ response: ApiKeyResponse | null }> {
    if (!/^[0-9a-f-]{36}$/i.test(command.apiKeyId)) throw new NotFoundError(`API key ${command.apiKeyId} not found`);
    const result = await handleCommand(
      this.store,
      apiKeyStream(command.apiKeyId),
      apiKeyDecider,
      { ...command, now: this.clock.now() } as ApiKeyCommand,
      { orgId: command.organizationId, actor },
      { newIds: () => this.ids.uuid() },
    );
    await this.consistency.waitFor(['api-keys'], result.position);
    const row = await this.reader.get(command.organizationId, command.apiKeyId);
    return { response: row ? toApiKeyResponse(row) : null };
  }
}

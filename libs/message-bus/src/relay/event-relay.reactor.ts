import { RecordedEvent, streamCategory } from '@larder/kernel';
import { MessageBus, subjectToken } from '../message-bus.port';

/** What downstream subscribers receive for each domain event. */
export interface RelayedEvent {
  id: string;
  type: string;
  stream: string;
  revision: number;
  position: string;
  organization_id: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: string;
}

/** `<prefix>.<organization>.<category>.<EventType>`, e.g. `larder.5f0c….api_key.ApiKeyCreated`. */
export function relaySubject(prefix: string, e: Pick<RecordedEvent, 'metadata' | 'streamId' | 'type'>): string {
  return `${prefix}.${subjectToken(e.metadata.orgId)}.${subjectToken(streamCategory(e.streamId))}.${subjectToken(e.type)}`;
}

/**
 * Reactor: publishes every domain event once to the bus, with the event id as the message id so a
 * republish after a crash (from the relay's own checkpoint) is dropped by JetStream de-duplication.
 * Never run by replay.
 */
export class EventRelayReactor {
  readonly name = 'nats-relay';
  constructor(
    private readonly bus: MessageBus,
    private readonly prefix = 'larder',
  ) {}

  async handle(e: RecordedEvent): Promise<void> {
    const payload: RelayedEvent = {
      id: e.id,
      type: e.type,
      stream: e.streamId,
      revision: e.revision,
      position: `${e.position.commit}/${e.position.prepare}`,
      organization_id: e.metadata.orgId,
      data: e.data,
      metadata: e.metadata,
      created_at: e.createdAt.toISOString(),
    };
    await this.bus.publish(relaySubject(this.prefix, e), payload, { msgId: e.id });
  }
}

import {
  connect,
  AckPolicy,
  DeliverPolicy,
  JSONCodec,
  NatsConnection,
  JetStreamClient,
  nanos,
  headers,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { BusMessage, BusSubscription, MessageBus, SubscribeOptions } from '../message-bus.port';

export interface NatsMessageBusOptions {
  url: string;
  /** JetStream stream holding Larder's subjects (default `LARDER_EVENTS`). */
  stream?: string;
  /** Subjects the stream captures (default `larder.>`). */
  subjects?: string[];
  /** JetStream de-duplication window (default 10 minutes). */
  duplicateWindowMs?: number;
}

/** NATS JetStream: messages are persisted in a stream and de-duplicated by `Nats-Msg-Id`. */
export class NatsMessageBus implements MessageBus {
  readonly kind = 'nats';
  private readonly codec = JSONCodec();
  private readonly subs = new Set<{ stop: () => void; done: Promise<void> }>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly stream: string,
  ) {}

  static async connect(options: NatsMessageBusOptions): Promise<NatsMessageBus> {
    const nc = await connect({ servers: options.url, name: 'larder' });
    const stream = options.stream ?? 'LARDER_EVENTS';
    const subjects = options.subjects ?? ['larder.>'];
    const jsm = await nc.jetstreamManager();
    const config = {
      name: stream,
      subjects,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      duplicate_window: nanos(options.duplicateWindowMs ?? 10 * 60_000),
    };
    try {
      await jsm.streams.info(stream);
      await jsm.streams.update(stream, config);
    } catch {
      await jsm.streams.add(config);
    }
    return new NatsMessageBus(nc, nc.jetstream(), stream);
  }

  async publish(subject: string, data: unknown, { msgId }: { msgId: string }): Promise<{ duplicate: boolean }> {
    const h = headers();
    h.set('Content-Type', 'application/json');
    const ack = await this.js.publish(subject, this.codec.encode(data), { msgID: msgId, headers: h });
    return { duplicate: ack.duplicate };
  }

  async subscribe<T>(
    filter: string,
    handler: (m: BusMessage<T>) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): Promise<BusSubscription> {
    // An ephemeral pull consumer (works on NATS 2.9+; ordered consumers need 2.10 with this client).
    const jsm = await this.nc.jetstreamManager();
    const info = await jsm.consumers.add(this.stream, {
      filter_subject: filter,
      deliver_policy: options.deliver === 'all' ? DeliverPolicy.All : DeliverPolicy.New,
      ack_policy: AckPolicy.None,
      inactive_threshold: nanos(60_000),
    });
    const consumer = await this.js.consumers.get(this.stream, info.name);
    const messages = await consumer.consume();
    const done = (async () => {
      for await (const m of messages) {
        await handler({
          subject: m.subject,
          id: m.headers?.get('Nats-Msg-Id') ?? '',
          data: this.codec.decode(m.data) as T,
        });
      }
    })();
    const entry = { stop: () => void messages.stop(), done };
    this.subs.add(entry);
    return {
      unsubscribe: async () => {
        entry.stop();
        this.subs.delete(entry);
        await done.catch(() => undefined);
        await jsm.consumers.delete(this.stream, info.name).catch(() => undefined);
      },
    };
  }

  /** Deletes the stream; for tests that make their own. */
  async destroyStream(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    await jsm.streams.delete(this.stream).catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const s of this.subs) s.stop();
    await this.nc.drain().catch(() => undefined);
  }
}

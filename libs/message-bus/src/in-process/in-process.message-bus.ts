import {
  BusMessage,
  BusRetention,
  BusSubscription,
  MessageBus,
  SubscribeOptions,
  subjectMatches,
} from '../message-bus.port';

/** Bytes of retained messages the in-process bus keeps by default for subscribers asking for `all`. */
export const DEFAULT_RETAIN_BYTES = 4 * 2 ** 20;
/** Message ids the in-process bus remembers at most for de-duplication (besides its window). */
const MAX_DUPLICATE_IDS = 16_384;
/** What one retained message costs besides its JSON: its entry, subject and id. */
const MESSAGE_OVERHEAD_BYTES = 160;

interface Retained {
  subject: string;
  id: string;
  json: string;
  bytes: number;
}

export interface InProcessBusOptions {
  /** How long a message id is remembered for de-duplication, ms (default 10 minutes; at most MAX_DUPLICATE_IDS ids). */
  duplicateWindowMs?: number;
  /** Bytes of the latest messages kept for subscribers asking for `all`, as JSON (default DEFAULT_RETAIN_BYTES; 0: none). */
  retainBytes?: number;
}

/**
 * The embedded default: an in-process bus with the same de-duplication semantics as JetStream. Messages
 * travel as JSON, as through NATS: a subscriber receives a decoded copy. The latest messages are kept, as
 * JSON, up to `retainBytes`, for a subscriber asking for `all`.
 */
export class InProcessMessageBus implements MessageBus {
  readonly kind = 'in-process';
  private readonly seen = new Map<string, number>();
  private readonly retained: Retained[] = [];
  private retainedBytes = 0;
  private readonly subscribers = new Set<{ filter: string; handler: (m: BusMessage) => void | Promise<void> }>();

  constructor(private readonly options: InProcessBusOptions = {}) {}

  stats(): BusRetention {
    return { messages: this.retained.length, bytes: this.retainedBytes, capacityBytes: this.capacity };
  }

  private get capacity(): number {
    return this.options.retainBytes ?? DEFAULT_RETAIN_BYTES;
  }

  async publish(subject: string, data: unknown, { msgId }: { msgId: string }): Promise<{ duplicate: boolean }> {
    const now = Date.now();
    const window = this.options.duplicateWindowMs ?? 10 * 60_000;
    for (const [id, at] of this.seen) {
      if (now - at <= window && this.seen.size < MAX_DUPLICATE_IDS) break;
      this.seen.delete(id);
    }
    if (this.seen.has(msgId)) return { duplicate: true };
    this.seen.set(msgId, now);
    const targets = [...this.subscribers].filter((s) => subjectMatches(s.filter, subject));
    if (!targets.length && this.capacity === 0) return { duplicate: false };
    const json = JSON.stringify(data ?? null);
    this.retain({ subject, id: msgId, json, bytes: Buffer.byteLength(json) + MESSAGE_OVERHEAD_BYTES });
    if (targets.length) {
      const message: BusMessage = { subject, id: msgId, data: JSON.parse(json) };
      for (const s of targets) await s.handler(message);
    }
    return { duplicate: false };
  }

  async subscribe<T>(
    filter: string,
    handler: (m: BusMessage<T>) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): Promise<BusSubscription> {
    const entry = { filter, handler: handler as (m: BusMessage) => void | Promise<void> };
    if (options.deliver === 'all') {
      for (const m of [...this.retained])
        if (subjectMatches(filter, m.subject))
          await entry.handler({ subject: m.subject, id: m.id, data: JSON.parse(m.json) });
    }
    this.subscribers.add(entry);
    return { unsubscribe: async () => void this.subscribers.delete(entry) };
  }

  async close(): Promise<void> {
    this.subscribers.clear();
  }

  /** Keeps `m` and forgets the oldest messages beyond the bound. */
  private retain(m: Retained): void {
    if (m.bytes > this.capacity) return;
    this.retained.push(m);
    this.retainedBytes += m.bytes;
    while (this.retainedBytes > this.capacity) this.retainedBytes -= this.retained.shift()!.bytes;
  }
}

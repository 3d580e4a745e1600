import { BusMessage, BusSubscription, MessageBus, SubscribeOptions, subjectMatches } from '../message-bus.port';

/** The embedded default: an in-process bus with the same de-duplication semantics as JetStream. */
export class InProcessMessageBus implements MessageBus {
  readonly kind = 'in-process';
  private readonly seen = new Map<string, number>();
  private readonly retained: BusMessage[] = [];
  private readonly subscribers = new Set<{ filter: string; handler: (m: BusMessage) => void | Promise<void> }>();

  constructor(private readonly options: { duplicateWindowMs?: number; retain?: number } = {}) {}

  async publish(subject: string, data: unknown, { msgId }: { msgId: string }): Promise<{ duplicate: boolean }> {
    const now = Date.now();
    const window = this.options.duplicateWindowMs ?? 10 * 60_000;
    for (const [id, at] of this.seen) {
      if (now - at <= window) break;
      this.seen.delete(id);
    }
    if (this.seen.has(msgId)) return { duplicate: true };
    this.seen.set(msgId, now);
    const message: BusMessage = { subject, id: msgId, data: structuredClone(data) };
    this.retained.push(message);
    if (this.retained.length > (this.options.retain ?? 10_000)) this.retained.shift();
    for (const s of this.subscribers) {
      if (subjectMatches(s.filter, subject)) await s.handler(message);
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
      for (const m of [...this.retained]) if (subjectMatches(filter, m.subject)) await entry.handler(m);
    }
    this.subscribers.add(entry);
    return { unsubscribe: async () => void this.subscribers.delete(entry) };
  }

  async close(): Promise<void> {
    this.subscribers.clear();
  }
}

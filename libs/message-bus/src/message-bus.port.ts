export interface BusMessage<T = unknown> {
  subject: string;
  /** The de-duplication id given at publish time (the domain event id for relayed events). */
  id: string;
  data: T;
}

export interface BusSubscription {
  unsubscribe(): Promise<void>;
}

export interface SubscribeOptions {
  /** `all`: replay what the bus retains, then live; `new`: only messages published from now on. */
  deliver?: 'all' | 'new';
}

/** The messages a bus keeps in this process for subscribers asking for `all`: how many, their bytes, and the bound. */
export interface BusRetention {
  messages: number;
  bytes: number;
  capacityBytes: number;
}

/**
 * Carries domain events to downstream subscribers. Never the system of record: the relay reactor
 * republishes from its checkpoint after a crash, and the bus drops the duplicates by message id.
 */
export interface MessageBus {
  readonly kind: string;
  /** Publishes once per `msgId` within the de-duplication window; `duplicate` tells a dropped repeat. */
  publish(subject: string, data: unknown, options: { msgId: string }): Promise<{ duplicate: boolean }>;
  /** `filter` uses NATS subject syntax: `*` matches one token, `>` the rest. */
  subscribe<T = unknown>(
    filter: string,
    handler: (message: BusMessage<T>) => void | Promise<void>,
    options?: SubscribeOptions,
  ): Promise<BusSubscription>;
  close(): Promise<void>;
  /** What the bus keeps in this process (the in-process bus); absent where the messages are kept elsewhere (JetStream). */
  stats?(): BusRetention;
}

export const MESSAGE_BUS = Symbol('MESSAGE_BUS');

/** NATS subject matching. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

/** Subject tokens may not contain `.`, `*`, `>` or whitespace. */
export function subjectToken(value: string): string {
  return value ? value.replace(/[.*>\s]/g, '_') : '_';
}

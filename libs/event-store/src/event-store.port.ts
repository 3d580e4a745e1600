import { NewEvent, Position, RecordedEvent } from '@larder/kernel';

/** `no_stream`: the stream must not exist; `stream_exists`: it must; `any`: no check; a number: exact revision. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: number;
  /** Global position of the last appended event. */
  position: Position;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive revision to start from; defaults to the start (forwards) or the end (backwards). */
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Defaults to the start of the log. */
  after?: Position;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive start position. */
  after?: Position;
  signal?: AbortSignal;
}

/**
 * The only source of truth. Implementations: Postgres (server or embedded), EventStoreDB, in-memory.
 * All must pass `testing/event-store.contract.ts`.
 */
export interface EventStore {
  readonly kind: string;
  appendToStream(
    stream: string,
    events: NewEvent[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /** Returns [] when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Events in global order. A reader never sees an event whose position is lower than one it has
   * already been given (no gaps under concurrent appenders).
   */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event visible to readers (START when empty). */
  headPosition(): Promise<Position>;
  /** Catch-up then live subscription over the global log; ends when the signal aborts. */
  subscribeToAll(options?: SubscribeOptions): AsyncIterable<RecordedEvent>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

import { NewEvent, Position, RecordedEvent } from '@larder/kernel';

/** `no_stream`: the stream must not exist; `stream_exists`: it must; `any`: no check; a number: exact revision. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: number;
  /** Global position of the last appended event. */
  position: Position;
}

/** One stream's part of `appendToStreams`. */
export interface StreamAppend {
  stream: string;
  events: NewEvent[];
  expectedRevision?: ExpectedRevision;
}

/** What became of one append of `appendToStreams`: stored (or already stored: its ids), or refused with its error. */
export type StreamAppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: Error };

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
  /**
   * Several appends at once, answered in order, each exactly as `appendToStream` would answer it alone:
   * checked against its own expected revision, idempotent for its own event ids, stored or refused on
   * its own (a refused one, `WrongExpectedRevisionError` among others, stores nothing of its own and
   * changes nothing of the others). Appends to one stream apply in the order given. Never rejects as a
   * whole: every append's error is in its outcome. Postgres stores the accepted appends in one
   * transaction; EventStoreDB, which has no multi-stream transaction, appends stream by stream, each
   * durable once its outcome says so.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]>;
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

/** Metadata every Larder event carries. Never put secrets here. */
export interface EventMetadata {
  /** Organization that owns the event; every read model is scoped by it. */
  orgId: string;
  /** Who caused it: an API key id, `system`, or `cli`. */
  actor?: string;
  correlationId?: string;
  causationId?: string;
  [key: string]: unknown;
}

/** An event about to be appended. `id` makes appends idempotent; one is generated when absent. */
export interface NewEvent<TType extends string = string, TData = Record<string, unknown>> {
  id?: string;
  type: TType;
  data: TData;
  metadata?: EventMetadata;
}

/**
 * A position in the global log. It mirrors EventStoreDB's `{commit, prepare}` pair and is ordered by
 * (commit, prepare). The Postgres adapter stores the appending transaction id in `commit` and the
 * global sequence number in `prepare`; the in-memory adapter uses the sequence number for both.
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = Object.freeze({ commit: 0n, prepare: 0n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function maxPosition(a: Position, b: Position): Position {
  return comparePositions(a, b) >= 0 ? a : b;
}

export function positionToString(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function positionFromString(s: string): Position {
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (!m) throw new Error(`not a position: ${s}`);
  return { commit: BigInt(m[1]), prepare: BigInt(m[2]) };
}

export interface RecordedEvent<TType extends string = string, TData = Record<string, unknown>> {
  id: string;
  type: TType;
  data: TData;
  metadata: EventMetadata;
  streamId: string;
  /** 0-based revision of the event inside its stream. */
  revision: number;
  position: Position;
  createdAt: Date;
}

/** A pure decider: the whole behaviour of one aggregate. */
export interface Decider<TState, TCommand, TEvent extends { type: string; data: unknown }> {
  initialState(): TState;
  evolve(state: TState, event: TEvent): TState;
  decide(command: TCommand, state: TState): TEvent[];
}

/**
 * A recorded event as one of a context's event types, for a projection or reactor that switches on
 * `type`. The log holds what the deciders appended, so the cast is the one trusted place where stored
 * JSON becomes a typed event.
 */
export function domainEvent<T extends { type: string; data: unknown }>(event: Pick<RecordedEvent, 'type' | 'data'>): T {
  return { type: event.type, data: event.data } as unknown as T;
}

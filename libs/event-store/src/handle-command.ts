import {
  assertEventSizes,
  Decider,
  EventMetadata,
  NewEvent,
  Position,
  RecordedEvent,
  WrongExpectedRevisionError,
} from '@larder/kernel';
import { EventStore, ExpectedRevision } from './event-store.port';

export interface CommandResult<TState> {
  state: TState;
  /** Position of the last appended event, or null when the decision produced no event. */
  position: Position | null;
  events: NewEvent[];
  /** Revision of the stream's last event after the command (-1: no stream); absent where not known. */
  revision?: number;
}

/** An aggregate's state from events already read (the decider sees only type and data). */
export function foldEvents<TState, TCommand, TEvent extends { type: string; data: unknown }>(
  decider: Decider<TState, TCommand, TEvent>,
  events: readonly RecordedEvent[],
): TState {
  let state = decider.initialState();
  for (const e of events) state = decider.evolve(state, { type: e.type, data: e.data } as unknown as TEvent);
  return state;
}

/** An aggregate's state from events already read, with the revision of the last (-1: none). */
function stateAt<TState, TCommand, TEvent extends { type: string; data: unknown }>(
  decider: Decider<TState, TCommand, TEvent>,
  events: readonly RecordedEvent[],
): HeldState<TState> {
  return { state: foldEvents(decider, events), revision: events.length ? events[events.length - 1].revision : -1 };
}

/** An aggregate's state from its own stream (never from a read model, which may lag). */
export async function foldStream<TState, TCommand, TEvent extends { type: string; data: unknown }>(
  store: EventStore,
  stream: string,
  decider: Decider<TState, TCommand, TEvent>,
): Promise<TState> {
  return foldEvents(decider, await store.readStream(stream));
}

/** An aggregate's state as its stream stood at `revision` (-1: no stream). */
export interface HeldState<TState> {
  state: TState;
  revision: number;
}

/** How a command is run: conflict retries, event ids, and the stream as the caller already holds it. */
export interface HandleOptions<TState = unknown> {
  retries?: number;
  newIds?: () => string;
  /**
   * The stream's events as the caller read them for its own policy: the first attempt decides on them
   * instead of reading again (a write in between fails the expected revision, and the retry reads afresh).
   */
  history?: readonly RecordedEvent[];
  /**
   * The state the caller's own last decision on this stream left (its `CommandResult`'s state and
   * revision): the first attempt decides on it without reading the stream, under the same guarantee as
   * `history` (a write in between fails the expected revision, and the retry reads afresh); a command
   * the held state refuses, or for which it decides nothing, is decided again on the stream as read.
   */
  held?: HeldState<TState>;
}

/**
 * read stream → fold → decide → append with the expected revision; retries on a concurrent write.
 */
export async function handleCommand<TState, TCommand, TEvent extends { type: string; data: unknown }>(
  store: EventStore,
  stream: string,
  decider: Decider<TState, TCommand, TEvent>,
  command: TCommand,
  metadata: EventMetadata,
  options: HandleOptions<TState> = {},
): Promise<CommandResult<TState>> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const fromHeld = attempt === 0 && !!options.held;
    const at = fromHeld
      ? options.held!
      : stateAt(decider, attempt === 0 && options.history ? options.history : await store.readStream(stream));
    const revision = at.revision;
    let state = at.state;
    const expected: ExpectedRevision = revision >= 0 ? revision : 'no_stream';
    let decided: TEvent[];
    try {
      decided = decider.decide(command, state);
    } catch (err) {
      // a refusal is decided on the stream as it is, never on a state the caller held
      if (fromHeld) continue;
      throw err;
    }
    if (decided.length === 0) {
      // only an append is checked against the stream: deciding nothing is decided on the stream as it is
      if (fromHeld) continue;
      return { state, position: null, events: [], revision };
    }
    const events: NewEvent[] = decided.map((e) => ({
      id: options.newIds?.(),
      type: e.type,
      data: e.data as Record<string, unknown>,
      metadata,
    }));
    // every command's events stay within the documented maximum (LIMITS.eventBytes): a backstop behind the request limits
    assertEventSizes(events);
    try {
      const result = await store.appendToStream(stream, events, { expectedRevision: expected });
      for (const e of decided) state = decider.evolve(state, e);
      return { state, position: result.position, events, revision: result.nextRevision };
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError && attempt < retries) continue;
      throw err;
    }
  }
}

/** A decider bound to its stream: `(store, command, metadata) → appended position and state`. Never waits for read models. */
export type BoundCommandHandler<TState, TCommand> = (
  store: EventStore,
  command: TCommand,
  metadata: EventMetadata,
  options?: HandleOptions<TState>,
) => Promise<CommandResult<TState>>;

/**
 * Binds a decider to the stream its commands address (in the spirit of emmett's `CommandHandler`).
 * The returned function appends and answers the position; waiting for read models is the caller's
 * next, separate step (`settle`), so nothing after a successful append can turn it into a failure.
 */
export function commandHandler<TState, TCommand, TEvent extends { type: string; data: unknown }>(
  decider: Decider<TState, TCommand, TEvent>,
  streamOf: (command: TCommand) => string,
  defaults: { retries?: number } = {},
): BoundCommandHandler<TState, TCommand> {
  return (store, command, metadata, options = {}) =>
    handleCommand(store, streamOf(command), decider, command, metadata, { ...defaults, ...options });
}

import { Decider, EventMetadata, NewEvent, Position, WrongExpectedRevisionError } from '@larder/kernel';
import { EventStore, ExpectedRevision } from './event-store.port';

export interface CommandResult<TState> {
  state: TState;
  /** Position of the last appended event, or null when the decision produced no event. */
  position: Position | null;
  events: NewEvent[];
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
  options: { retries?: number; newIds?: () => string } = {},
): Promise<CommandResult<TState>> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const history = await store.readStream(stream);
    let state = decider.initialState();
    for (const e of history) state = decider.evolve(state, { type: e.type, data: e.data } as unknown as TEvent);
    const expected: ExpectedRevision = history.length ? history[history.length - 1].revision : 'no_stream';
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { state, position: null, events: [] };
    const events: NewEvent[] = decided.map((e) => ({
      id: options.newIds?.(),
      type: e.type,
      data: e.data as Record<string, unknown>,
      metadata,
    }));
    try {
      const result = await store.appendToStream(stream, events, { expectedRevision: expected });
      for (const e of decided) state = decider.evolve(state, e);
      return { state, position: result.position, events };
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError && attempt < retries) continue;
      throw err;
    }
  }
}

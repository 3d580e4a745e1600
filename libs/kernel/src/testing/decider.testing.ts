import { Decider } from '../events';

type ErrorClass = abstract new (...args: never[]) => Error;

/** What a decision produced: the events, and the state once they are evolved onto the given state. */
export interface Decided<TState, TEvent> {
  events: TEvent[];
  state: TState;
}

export interface When<TState, TEvent> {
  /** The command decides exactly these events (deep equality), in this order. */
  then(...expected: TEvent[]): Decided<TState, TEvent>;
  /** The command decides events that match these partial shapes (`toMatchObject`), as many and in order. */
  thenMatches(...expected: unknown[]): Decided<TState, TEvent>;
  /** The command is accepted and changes nothing (an idempotent no-op). */
  thenNothing(): void;
  /**
   * The command is refused: with an error of this class (and, when given, a message matching
   * `message`), or with an error whose message contains the string / matches the pattern.
   */
  thenThrows(expected: ErrorClass | string | RegExp, message?: string | RegExp): Error;
}

export interface Given<TState, TCommand, TEvent> {
  /** The state folded from the given events. */
  readonly state: TState;
  when(command: TCommand): When<TState, TEvent>;
}

function deepFreeze<T>(x: T): T {
  if (x && typeof x === 'object' && !Object.isFrozen(x) && !ArrayBuffer.isView(x)) {
    Object.freeze(x);
    for (const v of Object.values(x as object)) deepFreeze(v);
  }
  return x;
}

function fold<TState, TEvent extends { type: string; data: unknown }>(
  decider: Decider<TState, unknown, TEvent>,
  state: TState,
  events: TEvent[],
): TState {
  return events.reduce((s, e) => {
    const next = decider.evolve(s, deepFreeze(e));
    if (next === undefined) throw new Error(`evolve returned no state for ${e.type}`);
    return deepFreeze(next);
  }, state);
}

/**
 * Given/when/then for a pure decider (`decide` → events, `evolve` → state):
 *
 *     given(storeDecider, created).when({ type: 'DeleteStore', ... }).then({ type: 'StoreDeleted', data: ... });
 *     given(storeDecider).when(update).thenThrows(NotFoundError);
 *     given(storeDecider, created, expired).when(expire).thenNothing();
 *
 * Beyond the expectation itself it checks that the decider is pure: states and events are frozen
 * (an evolve or decide that mutates its input throws), `decide` answers the same twice, and every
 * decided event evolves into a state.
 */
export function given<TState, TCommand, TEvent extends { type: string; data: unknown }>(
  decider: Decider<TState, TCommand, TEvent>,
  ...events: TEvent[]
): Given<TState, TCommand, TEvent> {
  const d = decider as unknown as Decider<TState, unknown, TEvent>;
  const state = fold(d, deepFreeze(decider.initialState()), structuredClone(events));
  return {
    state,
    when(command: TCommand): When<TState, TEvent> {
      const frozen = deepFreeze(structuredClone(command));
      const decide = () => decider.decide(frozen, state);
      const decided = (): Decided<TState, TEvent> => {
        const first = decide();
        expect(decide()).toEqual(first); // deterministic: time and ids come from the command
        return { events: first, state: fold(d, state, structuredClone(first)) };
      };
      return {
        then(...expected) {
          const r = decided();
          expect(r.events).toEqual(expected);
          return r;
        },
        thenMatches(...expected) {
          const r = decided();
          expect(r.events).toMatchObject(expected);
          return r;
        },
        thenNothing() {
          expect(decided().events).toEqual([]);
        },
        thenThrows(expected, message) {
          let error: unknown;
          let events: TEvent[] | undefined;
          try {
            events = decide();
          } catch (err) {
            error = err;
          }
          if (events) throw new Error(`expected the command to be refused, but it decided ${JSON.stringify(events)}`);
          if (!(error instanceof Error)) throw new Error(`decide threw a non-error: ${String(error)}`);
          if (typeof expected === 'function') {
            expect(error).toBeInstanceOf(expected);
            if (message !== undefined) expect(error.message).toMatch(message);
          } else {
            expect(error.message).toMatch(expected);
          }
          expect(decide).toThrow(error.constructor as new (...args: never[]) => Error); // deterministic refusal too
          return error;
        },
      };
    },
  };
}

import { ConflictError, NotFoundError } from '../errors';
import { Decider } from '../events';
import { given } from './decider.testing';
import { TestEventLog } from './event-log.testing';

type Ev = { type: 'Added'; data: { n: number } } | { type: 'Cleared'; data: { at: string } };
type Cmd = { type: 'Add'; n: number } | { type: 'Clear' } | { type: 'Fail' };
interface State {
  total: number;
  items: number[];
}

const counter: Decider<State, Cmd, Ev> = {
  initialState: () => ({ total: 0, items: [] }),
  evolve: (s, e) =>
    e.type === 'Added' ? { total: s.total + e.data.n, items: [...s.items, e.data.n] } : { total: 0, items: [] },
  decide: (c, s) => {
    if (c.type === 'Fail') throw new ConflictError('refused on purpose');
    if (c.type === 'Clear') return s.total === 0 ? [] : [{ type: 'Cleared', data: { at: 'now' } }];
    return [{ type: 'Added', data: { n: c.n } }];
  },
};
const added = (n: number): Ev => ({ type: 'Added', data: { n } });

describe('given/when/then for deciders', () => {
  it('passes on the decided events and answers the state after them', () => {
    const { events, state } = given(counter, added(1)).when({ type: 'Add', n: 2 }).then(added(2));
    expect(events).toEqual([added(2)]);
    expect(state).toEqual({ total: 3, items: [1, 2] });
    expect(given(counter, added(1), added(4)).state.total).toBe(5);
    given(counter, added(1)).when({ type: 'Add', n: 2 }).thenMatches({ type: 'Added' });
    given(counter).when({ type: 'Clear' }).thenNothing();
    expect(
      given(counter)
        .when({ type: 'Fail' })
        .thenThrows(ConflictError, /on purpose/),
    ).toBeInstanceOf(ConflictError);
    given(counter).when({ type: 'Fail' }).thenThrows('refused');
  });

  it('fails on other events, events where none were expected, and a missing refusal', () => {
    expect(() => given(counter).when({ type: 'Add', n: 2 }).then(added(3))).toThrow();
    expect(() => given(counter).when({ type: 'Add', n: 2 }).then(added(2), added(2))).toThrow();
    expect(() => given(counter).when({ type: 'Add', n: 2 }).thenMatches({ type: 'Cleared' })).toThrow();
    expect(() => given(counter, added(1)).when({ type: 'Clear' }).thenNothing()).toThrow();
    expect(() => given(counter).when({ type: 'Add', n: 2 }).thenThrows(ConflictError)).toThrow(
      /expected the command to be refused/,
    );
  });

  it('fails on a refusal of another class or message', () => {
    expect(() => given(counter).when({ type: 'Fail' }).thenThrows(NotFoundError)).toThrow();
    expect(() => given(counter).when({ type: 'Fail' }).thenThrows(ConflictError, /other/)).toThrow();
    expect(() => given(counter).when({ type: 'Fail' }).thenThrows('nope')).toThrow();
  });

  it('catches a decider that mutates its state or command, or is not deterministic', () => {
    const mutating: Decider<State, Cmd, Ev> = { ...counter, decide: (c, s) => (s.items.push(1), counter.decide(c, s)) };
    expect(() => given(mutating).when({ type: 'Add', n: 1 }).then(added(1))).toThrow(TypeError);
    const mutatingEvolve: Decider<State, Cmd, Ev> = {
      ...counter,
      evolve: (s, e) => (((e.data as { n: number }).n = 0), counter.evolve(s, e)),
    };
    expect(() => given(mutatingEvolve, added(1))).toThrow(TypeError);
    let calls = 0;
    const random: Decider<State, Cmd, Ev> = { ...counter, decide: () => [added(++calls)] };
    expect(() => given(random).when({ type: 'Add', n: 1 }).then(added(1))).toThrow();
    const partialEvolve = {
      ...counter,
      evolve: (s: State, e: Ev) => (e.type === 'Added' ? counter.evolve(s, e) : undefined),
    } as unknown as Decider<State, Cmd, Ev>;
    expect(() =>
      given(partialEvolve, added(1))
        .when({ type: 'Clear' })
        .then({ type: 'Cleared', data: { at: 'now' } }),
    ).toThrow(/evolve returned no state for Cleared/);
  });
});

describe('TestEventLog', () => {
  it('numbers revisions per stream and positions per log, and decides against a stream’s history', () => {
    const log = new TestEventLog();
    log.append('counter-a', { orgId: 'o' }, added(1));
    log.append('counter-b', { orgId: 'o' }, added(5));
    expect(log.decide(counter, 'counter-a', { type: 'Clear' }, { orgId: 'o' })).toEqual([
      { type: 'Cleared', data: { at: 'now' } },
    ]);
    expect(log.decide(counter, 'counter-a', { type: 'Clear' }, { orgId: 'o' })).toEqual([]);
    const events = log.events;
    expect(events.map((e) => [e.streamId, e.revision, e.position.prepare, e.type])).toEqual([
      ['counter-a', 0, 1n, 'Added'],
      ['counter-b', 0, 2n, 'Added'],
      ['counter-a', 1, 3n, 'Cleared'],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    const again = new TestEventLog();
    again.append('counter-a', { orgId: 'o' }, added(1));
    expect(again.events[0].id).toBe(events[0].id);
  });
});

import { Clock, ConsistencyTimeoutError, Decider, IdGenerator, ReadModelConsistency } from '@larder/kernel';
import { InMemoryEventStore } from './in-memory/in-memory.event-store';
import { commandHandler } from './handle-command';
import { Writes } from './writes';

type Note = { type: 'WriteNote'; noteId: string; organizationId: string; text: string; now: Date };
type NoteEvent = { type: 'NoteWritten'; data: { text: string; at: string } };
const noteDecider: Decider<{ text: string | null; at: string | null }, Note, NoteEvent> = {
  initialState: () => ({ text: null, at: null }),
  evolve: (_s, e) => ({ text: e.data.text, at: e.data.at }),
  decide: (c, s) =>
    s.text === c.text ? [] : [{ type: 'NoteWritten', data: { text: c.text, at: c.now.toISOString() } }],
};
const handleNote = commandHandler(noteDecider, (c: Note) => `note-${c.noteId}`);
const ORG = '11111111-1111-4111-8111-111111111111';

function setup(readModel: 'late' | 'caught up') {
  const store = new InMemoryEventStore();
  let t = Date.UTC(2026, 0, 1);
  const clock: Clock = { now: () => new Date((t += 1000)) };
  let n = 0;
  const ids: IdGenerator = {
    uuid: () => `33333333-3333-4333-8333-${String(++n).padStart(12, '0')}`,
    secret: () => 's',
  };
  const consistency: ReadModelConsistency = {
    waitFor: async () => {
      if (readModel === 'late') throw new ConsistencyTimeoutError('late');
    },
  };
  const writes = new Writes(store, clock, ids, consistency);
  return { store, notes: writes.writer(handleNote, ['files']) };
}

describe('CommandWriter: run → settle → read', () => {
  it('stamps the clock unless the command names its own time, and records the organization and actor', async () => {
    const s = setup('caught up');
    const first = await s.notes.decide({ type: 'WriteNote', noteId: 'a', organizationId: ORG, text: 'rye' }, 'key-1');
    expect(first.state.at).toBe('2026-01-01T00:00:01.000Z');
    const own = new Date(Date.UTC(2025, 5, 1));
    const second = await s.notes.decide(
      { type: 'WriteNote', noteId: 'a', organizationId: ORG, text: 'spelt', now: own },
      'key-1',
    );
    expect(second.state.at).toBe(own.toISOString());
    const [e] = await s.store.readStream('note-a');
    expect(e.metadata).toMatchObject({ orgId: ORG, actor: 'key-1' });
  });

  it('answers from the read model once it caught up, and from the decided state when it is late or its read fails', async () => {
    const fromState = (st: { text: string | null }) => `decided:${st.text}`;
    const caughtUp = setup('caught up');
    const d1 = await caughtUp.notes.decide(
      { type: 'WriteNote', noteId: 'a', organizationId: ORG, text: 'rye' },
      'key-1',
    );
    expect(d1.settled).toBe(true);
    expect(await caughtUp.notes.read(d1, async () => 'row:rye', fromState)).toBe('row:rye');
    expect(await caughtUp.notes.read(d1, () => Promise.reject(new Error('down')), fromState)).toBe('decided:rye');
    const late = setup('late');
    const d2 = await late.notes.decide({ type: 'WriteNote', noteId: 'a', organizationId: ORG, text: 'rye' }, 'key-1');
    expect(d2.settled).toBe(false);
    expect(await late.notes.read(d2, async () => 'row:stale', fromState)).toBe('decided:rye');
    // the write is stored whether or not the read model caught up
    expect(await late.store.readStream('note-a')).toHaveLength(1);
  });

  it('with nothing appended, answers from the read model without waiting', async () => {
    const late = setup('late');
    await late.notes.run({ type: 'WriteNote', noteId: 'a', organizationId: ORG, text: 'rye' }, 'key-1');
    const again = await late.notes.decide(
      { type: 'WriteNote', noteId: 'a', organizationId: ORG, text: 'rye' },
      'key-1',
      false,
    );
    expect(again.position).toBeNull();
    expect(
      await late.notes.answer(
        again,
        async () => 'row:rye',
        () => 'decided',
      ),
    ).toBe('row:rye');
  });

  it('decides on the history its caller read, and on the stream read afresh once a write came in between', async () => {
    const s = setup('caught up');
    const write = (text: string, history?: Awaited<ReturnType<typeof s.store.readStream>>) =>
      s.notes.decide({ type: 'WriteNote', noteId: 'a', organizationId: ORG, text }, 'key-1', false, { history });
    await write('rye');
    const seen = await s.store.readStream('note-a');
    const reads = jest.spyOn(s.store, 'readStream');
    // the history as read: no second read, and the decider sees it (the same text decides nothing)
    expect((await write('rye', seen)).position).toBeNull();
    expect(reads).not.toHaveBeenCalled();
    await write('spelt');
    reads.mockClear();
    // the history is stale now: its expected revision fails, the retry reads the stream and decides on it
    const late = await write('oat', seen);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(late.revision).toBe(2);
    expect((await s.store.readStream('note-a')).map((e) => e.data.text)).toEqual(['rye', 'spelt', 'oat']);
  });

  it('decides on the state its own last decision left, and reads afresh when that is stale or refuses', async () => {
    const s = setup('caught up');
    type Held = { state: { text: string | null; at: string | null }; revision: number };
    const write = (text: string, held?: Held) =>
      s.notes.decide({ type: 'WriteNote', noteId: 'a', organizationId: ORG, text }, 'key-1', false, { held });
    const first = await write('rye');
    const reads = jest.spyOn(s.store, 'readStream');
    // the held state: no read, the append at its revision
    const second = await write('spelt', { state: first.state, revision: first.revision! });
    expect(reads).not.toHaveBeenCalled();
    expect(second.revision).toBe(1);
    // a held state a write has passed meanwhile: the expected revision fails, the retry reads and decides afresh
    const third = await write('oat', { state: first.state, revision: first.revision! });
    expect(reads).toHaveBeenCalledTimes(1);
    expect(third.revision).toBe(2);
    expect((await s.store.readStream('note-a')).map((e) => e.data.text)).toEqual(['rye', 'spelt', 'oat']);
    // a held state that would decide nothing (or refuse) is not trusted: the stream as read decides
    reads.mockClear();
    const fourth = await write('rye', { state: first.state, revision: first.revision! });
    expect(reads).toHaveBeenCalledTimes(1);
    expect(fourth.revision).toBe(3);
  });
});

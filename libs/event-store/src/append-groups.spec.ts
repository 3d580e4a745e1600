import { AppendGroups, PreparedAppend } from './append-groups';
import { StreamAppendOutcome } from './event-store.port';

const append = (stream: string): PreparedAppend => ({
  stream,
  expectedRevision: 'any',
  events: [{ id: `${stream}-0`, type: 'E', data: {} }],
});
const ok = (n: number): StreamAppendOutcome => ({
  ok: true,
  result: { nextRevision: n, position: { commit: 1n, prepare: BigInt(n) } },
});

describe('AppendGroups', () => {
  it('sends the appends that came while a statement ran as one group, in order', async () => {
    const groups: string[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const g = new AppendGroups(
      1,
      async (group) => {
        groups.push(group.map((a) => a.stream));
        return group.map((_, i) => ok(i));
      },
      async (a) => {
        groups.push([a.stream]);
        if (a.stream === 'a') await first;
        return ok(0);
      },
    );
    const a = g.append([append('a')]);
    const rest = [g.append([append('b')]), g.append([append('c'), append('d')])];
    await new Promise((r) => setImmediate(r));
    expect(groups).toEqual([['a']]);
    release();
    await a;
    const outcomes = (await Promise.all(rest)).flat();
    expect(groups).toEqual([['a'], ['b', 'c', 'd']]);
    expect(outcomes.map((o) => o.ok && o.result.nextRevision)).toEqual([0, 1, 2]);
  });

  it('tries every append of a failed statement alone, each answered with its own outcome', async () => {
    const alone: string[] = [];
    let hold!: () => void;
    const held = new Promise<void>((r) => (hold = r));
    const g = new AppendGroups(
      1,
      async () => {
        throw new Error('invalid input syntax for type json');
      },
      async (a) => {
        alone.push(a.stream);
        if (a.stream === 'first') await held;
        if (a.stream === 'bad') return { ok: false, error: new Error('bad record') };
        return ok(0);
      },
    );
    const first = g.append([append('first')]);
    const others = ['x', 'bad', 'y'].map((s) => g.append([append(s)]));
    hold();
    await first;
    const outcomes = (await Promise.all(others)).flat();
    expect(alone).toEqual(['first', 'x', 'bad', 'y']);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
  });

  it('runs up to `statements` statements at once', async () => {
    let running = 0;
    let most = 0;
    const g = new AppendGroups(
      2,
      async (group) => group.map(() => ok(0)),
      async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return ok(0);
      },
    );
    await Promise.all(['a', 'b'].map((s) => g.append([append(s)])));
    expect(most).toBe(2);
  });
});

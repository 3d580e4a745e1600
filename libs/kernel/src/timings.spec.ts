import { addTiming, serverTiming, timed, timings, withTimings } from './timings';

describe('request timings', () => {
  it('collects the steps of one scope, summing a step that runs twice, in the order they first reported', async () => {
    const steps = await withTimings(async () => {
      addTiming('embed', 2);
      await timed('dense', () => new Promise((r) => setTimeout(r, 5)));
      addTiming('embed', 1.5);
      await expect(timed('lexical', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
      return timings();
    });
    expect(Object.keys(steps)).toEqual(['embed', 'dense', 'lexical']);
    expect(steps.embed).toBe(3.5);
    expect(steps.dense).toBeGreaterThanOrEqual(4);
    expect(steps.lexical).toBeGreaterThanOrEqual(0);
  });

  it('keeps concurrent scopes apart and does nothing outside a scope', async () => {
    const run = (name: string, ms: number) =>
      withTimings(async () => {
        await new Promise((r) => setTimeout(r, ms));
        addTiming(name, ms);
        return timings();
      });
    const [a, b] = await Promise.all([run('a', 4), run('b', 1)]);
    expect(a).toEqual({ a: 4 });
    expect(b).toEqual({ b: 1 });
    addTiming('outside', 1);
    expect(timings()).toEqual({});
  });

  it('renders the Server-Timing header value', () => {
    expect(serverTiming({ embed: 3.2, search: 9.814 })).toBe('embed;dur=3.20, search;dur=9.81');
  });
});

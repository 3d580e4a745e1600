import { messageBusContract } from '../testing/message-bus.contract';
import { subjectMatches } from '../message-bus.port';
import { InProcessMessageBus } from './in-process.message-bus';

messageBusContract('in-process', async () => {
  const bus = new InProcessMessageBus();
  return { bus, prefix: 'larder', close: () => bus.close() };
});

describe('subjectMatches', () => {
  it.each([
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.d', false],
    ['a.>', 'a.b.c', true],
    ['a.>', 'a', false],
    ['a.b', 'a.b.c', false],
    ['a.b.c', 'a.b', false],
  ])('%s vs %s → %s', (f, s, r) => expect(subjectMatches(f, s)).toBe(r));
});

describe('InProcessMessageBus retention', () => {
  const publishMany = async (bus: InProcessMessageBus, n: number, text: string) => {
    for (let i = 0; i < n; i++) await bus.publish(`larder.o.x.Y`, { i, text }, { msgId: `m${i}` });
  };

  it('keeps the latest messages within its bound in bytes, and replays those', async () => {
    const bus = new InProcessMessageBus({ retainBytes: 10_000 });
    await publishMany(bus, 100, 'x'.repeat(800));
    const { messages, bytes, capacityBytes } = bus.stats();
    expect(capacityBytes).toBe(10_000);
    expect(bytes).toBeLessThanOrEqual(10_000);
    expect(messages).toBeGreaterThan(5);
    expect(messages).toBeLessThan(12);
    const got: number[] = [];
    await bus.subscribe<{ i: number }>('larder.>', (m) => void got.push(m.data.i), { deliver: 'all' });
    expect(got).toEqual(Array.from({ length: messages }, (_, k) => 100 - messages + k));
  });

  it('counts a message by its JSON: non-ASCII text by its UTF-8 bytes', async () => {
    const ascii = new InProcessMessageBus();
    const wide = new InProcessMessageBus();
    await ascii.publish('a.b', { text: 'a'.repeat(1000) }, { msgId: '1' });
    await wide.publish('a.b', { text: 'é'.repeat(1000) }, { msgId: '1' });
    expect(wide.stats().bytes - ascii.stats().bytes).toBe(1000);
  });

  it('keeps nothing with a bound of 0, and still delivers to subscribers', async () => {
    const bus = new InProcessMessageBus({ retainBytes: 0 });
    const got: unknown[] = [];
    await bus.subscribe('larder.>', (m) => void got.push(m.data));
    await publishMany(bus, 3, 'x');
    expect(bus.stats()).toEqual({ messages: 0, bytes: 0, capacityBytes: 0 });
    expect(got).toEqual([0, 1, 2].map((i) => ({ i, text: 'x' })));
  });

  it('hands subscribers a copy decoded from JSON, as NATS does', async () => {
    const bus = new InProcessMessageBus();
    const data = { at: new Date(0), nested: { n: 1 } };
    let received: unknown;
    await bus.subscribe('a.>', (m) => void (received = m.data));
    await bus.publish('a.b', data, { msgId: '1' });
    data.nested.n = 2;
    expect(received).toEqual({ at: '1970-01-01T00:00:00.000Z', nested: { n: 1 } });
  });

  it('remembers at most 16,384 message ids for de-duplication, the oldest forgotten first', async () => {
    const bus = new InProcessMessageBus({ retainBytes: 0 });
    for (let i = 0; i < 16_400; i++) await bus.publish('a.b', i, { msgId: `m${i}` });
    expect(await bus.publish('a.b', 0, { msgId: 'm16399' })).toEqual({ duplicate: true });
    expect(await bus.publish('a.b', 0, { msgId: 'm0' })).toEqual({ duplicate: false });
  });
});

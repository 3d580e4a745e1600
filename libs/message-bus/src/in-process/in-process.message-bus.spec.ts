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

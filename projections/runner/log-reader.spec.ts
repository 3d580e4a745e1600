import { START } from '@larder/kernel';
import { InMemoryEventStore } from '@larder/event-store/in-memory/in-memory.event-store';
import { SharedLogReader } from './log-reader';

const event = (i: number) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'T', data: { i } });

async function storeWith(n: number): Promise<InMemoryEventStore> {
  const store = new InMemoryEventStore();
  for (let i = 0; i < n; i++) await store.appendToStream(`s-${i % 3}`, [event(i)]);
  return store;
}

describe('SharedLogReader', () => {
  it('answers a read from inside a recent batch without the store, with the events the store would give', async () => {
    const store = await storeWith(10);
    const direct = await store.readAll({ after: START, maxCount: 100 });
    const reads = jest.spyOn(store, 'readAll');
    const reader = new SharedLogReader(store);

    expect((await reader.read(START, 100)).map((e) => e.id)).toEqual(direct.map((e) => e.id));
    expect(reads).toHaveBeenCalledTimes(1);
    for (const at of [3, 0, 7]) {
      const expected = await store.readAll({ after: direct[at].position, maxCount: 4 });
      reads.mockClear();
      expect((await reader.read(direct[at].position, 4)).map((e) => e.id)).toEqual(expected.map((e) => e.id));
      expect(reads).not.toHaveBeenCalled();
    }
  });

  it('reads the store past the end of what it holds, and sees what was appended since', async () => {
    const store = await storeWith(5);
    const reader = new SharedLogReader(store);
    const first = await reader.read(START, 100);
    await store.appendToStream('s-new', [event(99)]);
    const reads = jest.spyOn(store, 'readAll');
    const next = await reader.read(first[first.length - 1].position, 100);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(next.map((e) => e.data)).toEqual([{ i: 99 }]);
  });

  it('keeps nothing of an empty read', async () => {
    const store = await storeWith(0);
    const reader = new SharedLogReader(store);
    expect(await reader.read(START, 10)).toEqual([]);
    await store.appendToStream('s', [event(1)]);
    expect((await reader.read(START, 10)).map((e) => e.data)).toEqual([{ i: 1 }]);
  });
});

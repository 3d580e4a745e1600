import { ReadModelCache, ReadModelConsistency } from './consistency';

describe('ReadModelCache', () => {
  it('serves an entry while the epoch holds, reloads when it moves, caches nothing without an epoch', async () => {
    let epoch: string | null = '1';
    const consistency: ReadModelConsistency = { waitFor: async () => undefined, epoch: () => epoch };
    const cache = new ReadModelCache(consistency);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', ['stores'], load)).toBe(1);
    expect(await cache.get('k', ['stores'], load)).toBe(1);
    epoch = '2';
    expect(await cache.get('k', ['stores'], load)).toBe(2);
    epoch = null;
    expect(await cache.get('k', ['stores'], load)).toBe(3);
    expect(await cache.get('k', ['stores'], load)).toBe(4);
  });
});

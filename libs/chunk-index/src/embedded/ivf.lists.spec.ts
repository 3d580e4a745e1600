import { ivfListsFor, ivfProbesFor } from './ivf.options';

describe('IVF lists and probes by the vectors trained on (LARDER_IVF_LISTS=0)', () => {
  it('gives 256 lists up to ~70k vectors, then a power of two near n / 200, at most 4,096', () => {
    expect([20_000, 50_000, 70_000, 100_000, 200_000, 1_000_000, 2_000_000, 50_000_000].map(ivfListsFor)).toEqual([
      256, 256, 256, 512, 1024, 4096, 4096, 4096,
    ]);
    expect(ivfListsFor(0)).toBe(256);
  });

  it('scans 16 of 256 lists, and a smaller share of finer lists (× (lists / 256)^0.75)', () => {
    expect(ivfProbesFor(16, 256)).toBe(16);
    expect(ivfProbesFor(16, 512)).toBe(27);
    expect(ivfProbesFor(16, 1024)).toBe(45);
    expect(ivfProbesFor(16, 4096)).toBe(128);
    // never more lists than there are, never none
    expect(ivfProbesFor(400, 256)).toBe(256);
    expect(ivfProbesFor(1, 16)).toBe(1);
  });
});

import { ServiceUnavailableError } from '@larder/kernel';
import { SearchAdmission, defaultAdmissionLimits } from './search-admission';
import type { SearchConfig } from './search.config';

const admission = (concurrency: number, queue: number, queueWaitMs = 60_000) =>
  new SearchAdmission({ admission: { concurrency, queue, queueWaitMs } } as SearchConfig);

/** A search that runs until `finish()` is called; `started` says whether it got its turn. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const g = { started: false, finish, search: () => ((g.started = true), done) };
  return g;
}

const turn = () => new Promise((r) => setImmediate(r));

describe('SearchAdmission', () => {
  it('runs at most `concurrency` searches at once and the rest in the order they came', async () => {
    const a = admission(2, 10);
    const gates = Array.from({ length: 5 }, gate);
    const order: number[] = [];
    const runs = gates.map((g, i) => a.run(async () => (order.push(i), g.search())));
    await turn();
    expect(gates.map((g) => g.started)).toEqual([true, true, false, false, false]);
    expect([a.running, a.queued]).toEqual([2, 3]);
    gates[1].finish();
    await turn();
    await turn();
    expect(gates.map((g) => g.started)).toEqual([true, true, true, false, false]);
    for (const g of gates) g.finish();
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect([a.running, a.queued]).toEqual([0, 0]);
  });

  it('refuses with 503 and Retry-After only once the queue is full, and counts it', async () => {
    const a = admission(1, 2);
    const gates = Array.from({ length: 3 }, gate);
    const runs = gates.map((g) => a.run(g.search));
    const refused = await a.run(async () => 'ran').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceUnavailableError);
    expect(refused).toMatchObject({ status: 503, type: 'service_unavailable', headers: { 'retry-after': '1' } });
    expect(a.refused).toEqual({ queueFull: 1, queueWait: 0 });
    for (const g of gates) g.finish();
    await Promise.all(runs);
    await expect(a.run(async () => 'ran')).resolves.toBe('ran');
  });

  it('refuses a search that waited longer than the wait limit, and it never runs', async () => {
    const a = admission(1, 10, 20);
    const first = gate();
    const running = a.run(first.search);
    const late = gate();
    const err = await a.run(late.search).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(a.refused).toEqual({ queueFull: 0, queueWait: 1 });
    expect(a.queued).toBe(0);
    first.finish();
    await running;
    await turn();
    expect(late.started).toBe(false);
  });

  it('drops a queued search whose client hung up', async () => {
    const a = admission(1, 10);
    const first = gate();
    const running = a.run(first.search);
    const hungUp = new AbortController();
    const queued = gate();
    const pending = a.run(queued.search, hungUp.signal).catch((e: unknown) => e);
    await turn();
    expect(a.queued).toBe(1);
    hungUp.abort(new Error('client closed'));
    expect(await pending).toMatchObject({ message: 'client closed' });
    expect(a.queued).toBe(0);
    first.finish();
    await running;
    expect(queued.started).toBe(false);
  });

  it('a failed search frees its turn', async () => {
    const a = admission(1, 10);
    await expect(a.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(a.running).toBe(0);
    await expect(a.run(async () => 'next')).resolves.toBe('next');
  });

  it('a search nested in another runs in its caller turn (no deadlock at concurrency 1)', async () => {
    const a = admission(1, 0);
    await expect(a.run(() => a.run(async () => 'inner'))).resolves.toBe('inner');
  });

  it('a model call (`outside`) gives the turn up meanwhile and takes it back ahead of the queue', async () => {
    const a = admission(1, 10);
    const model = gate();
    const after: string[] = [];
    const withModel = a.run(async () => {
      await a.outside(model.search);
      after.push('model search resumed');
      expect(a.running).toBe(1);
    });
    await turn();
    expect(model.started).toBe(true);
    expect(a.running).toBe(0);
    // another search takes the free turn while the model answers
    const other = gate();
    const otherRun = a.run(other.search);
    await turn();
    expect(other.started).toBe(true);
    // a third waits; the model search, once answered, goes first
    const third = gate();
    const thirdRun = a.run(async () => (after.push('third'), third.search()));
    model.finish();
    await turn();
    other.finish();
    await otherRun;
    await withModel;
    third.finish();
    await thirdRun;
    expect(after).toEqual(['model search resumed', 'third']);
  });

  it('defaults to two searches per core, 256 waiting, 10 s of waiting', () => {
    expect(defaultAdmissionLimits(4)).toEqual({ concurrency: 8, queue: 256, queueWaitMs: 0 });
    expect(new SearchAdmission().limits.queue).toBe(256);
  });
});

import { randomUUID } from 'crypto';
import { NewEvent, RecordedEvent, comparePositions, WrongExpectedRevisionError, Position } from '@larder/kernel';
import { EventStore } from '../event-store.port';

/**
 * The one conformance suite every EventStore adapter must pass (in-memory, Postgres server,
 * embedded Postgres, EventStoreDB).
 */
export function eventStoreContract(
  name: string,
  open: () => Promise<{ store: EventStore; close: () => Promise<void> }>,
): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => {
      await close();
    });

    const stream = (category = 'contract') => `${category}-${randomUUID()}`;
    const ev = (type: string, n: number, id?: string): NewEvent => ({
      id,
      type,
      data: { n },
      metadata: { orgId: 'org-contract' },
    });

    it('appends to a new stream with no_stream and reads it back forwards', async () => {
      const s = stream();
      const r = await store.appendToStream(s, [ev('Created', 0), ev('Renamed', 1)], { expectedRevision: 'no_stream' });
      expect(r.nextRevision).toBe(1);
      const read = await store.readStream(s);
      expect(read.map((e) => [e.type, e.revision, e.data.n, e.streamId])).toEqual([
        ['Created', 0, 0, s],
        ['Renamed', 1, 1, s],
      ]);
      expect(read[0].metadata.orgId).toBe('org-contract');
      expect(read[0].createdAt).toBeInstanceOf(Date);
      expect(comparePositions(read[1].position, r.position)).toBe(0);
    });

    it('returns [] for a stream that does not exist', async () => {
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('enforces exact expected revisions with a typed conflict error', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('A', 0)], { expectedRevision: 'no_stream' });
      await store.appendToStream(s, [ev('B', 1)], { expectedRevision: 0 });
      await expect(store.appendToStream(s, [ev('C', 2)], { expectedRevision: 0 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(store.appendToStream(s, [ev('C', 2)], { expectedRevision: 5 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(store.appendToStream(s, [ev('C', 2)], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.appendToStream(s, [ev('C', 2)], { expectedRevision: 1 });
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('supports stream_exists and any', async () => {
      const s = stream();
      await expect(store.appendToStream(s, [ev('A', 0)], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.appendToStream(s, [ev('A', 0)], { expectedRevision: 'any' });
      await store.appendToStream(s, [ev('B', 1)], { expectedRevision: 'stream_exists' });
      await store.appendToStream(s, [ev('C', 2)]);
      expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('lets exactly one of many concurrent writers win the same expected revision', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('A', 0)], { expectedRevision: 'no_stream' });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.appendToStream(s, [ev('B', i)], { expectedRevision: 0 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('lets exactly one of many concurrent creators of a stream win no_stream', async () => {
      const s = stream();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.appendToStream(s, [ev('Created', i)], { expectedRevision: 'no_stream' }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
    });

    it('reads a stream backwards, from a revision, with a max count', async () => {
      const s = stream();
      await store.appendToStream(
        s,
        [0, 1, 2, 3, 4].map((n) => ev('E', n)),
      );
      expect((await store.readStream(s, { direction: 'backwards' })).map((e) => e.revision)).toEqual([4, 3, 2, 1, 0]);
      expect(
        (await store.readStream(s, { direction: 'backwards', fromRevision: 2, maxCount: 2 })).map((e) => e.revision),
      ).toEqual([2, 1]);
      expect((await store.readStream(s, { fromRevision: 3 })).map((e) => e.revision)).toEqual([3, 4]);
      expect((await store.readStream(s, { maxCount: 2 })).map((e) => e.revision)).toEqual([0, 1]);
    });

    it('reads all events in global order, strictly after a position', async () => {
      const head = await store.headPosition();
      const s1 = stream();
      const s2 = stream();
      await store.appendToStream(s1, [ev('X', 1)]);
      await store.appendToStream(s2, [ev('X', 2)]);
      await store.appendToStream(s1, [ev('X', 3)]);
      const mine = await readAllAfter(store, head, (e) => e.streamId === s1 || e.streamId === s2);
      expect(mine.map((e) => e.data.n)).toEqual([1, 2, 3]);
      for (let i = 1; i < mine.length; i++)
        expect(comparePositions(mine[i - 1].position, mine[i].position)).toBeLessThan(0);
      const afterFirst = await readAllAfter(store, mine[0].position, (e) => e.streamId === s1 || e.streamId === s2);
      expect(afterFirst.map((e) => e.data.n)).toEqual([2, 3]);
      expect(comparePositions(await store.headPosition(), mine[2].position)).toBeGreaterThanOrEqual(0);
    });

    it('is idempotent for a retried append with the same event ids', async () => {
      const s = stream();
      const ids = [randomUUID(), randomUUID()];
      const first = await store.appendToStream(s, [ev('A', 0, ids[0]), ev('B', 1, ids[1])], {
        expectedRevision: 'no_stream',
      });
      const again = await store.appendToStream(s, [ev('A', 0, ids[0]), ev('B', 1, ids[1])], {
        expectedRevision: 'no_stream',
      });
      expect(again.nextRevision).toBe(first.nextRevision);
      const read = await store.readStream(s);
      expect(read.map((e) => e.id)).toEqual(ids);
    });

    it('appends to several streams at once, each append answered on its own', async () => {
      const [a, b, c] = [stream(), stream(), stream()];
      await store.appendToStream(b, [ev('B0', 0)], { expectedRevision: 'no_stream' });
      const head = await store.headPosition();
      const outcomes = await store.appendToStreams([
        { stream: a, events: [ev('A0', 0), ev('A1', 1)], expectedRevision: 'no_stream' },
        { stream: b, events: [ev('B1', 1)], expectedRevision: 5 },
        { stream: c, events: [ev('C0', 0)], expectedRevision: 'any' },
        { stream: a, events: [ev('A2', 2)], expectedRevision: 1 },
        { stream: b, events: [] },
      ]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, true, true, false]);
      if (outcomes[1].ok) throw new Error('unreachable');
      expect(outcomes[1].error).toBeInstanceOf(WrongExpectedRevisionError);
      if (!outcomes[0].ok || !outcomes[2].ok || !outcomes[3].ok) throw new Error('unreachable');
      expect([
        outcomes[0].result.nextRevision,
        outcomes[2].result.nextRevision,
        outcomes[3].result.nextRevision,
      ]).toEqual([1, 0, 2]);
      // the refused append stored nothing, the others are read back as appended, in the order given
      expect((await store.readStream(a)).map((e) => e.type)).toEqual(['A0', 'A1', 'A2']);
      expect((await store.readStream(b)).map((e) => e.type)).toEqual(['B0']);
      expect((await store.readStream(c)).map((e) => e.type)).toEqual(['C0']);
      const mine = await readAllAfter(store, head, (e) => [a, b, c].includes(e.streamId));
      expect(mine.map((e) => e.type)).toEqual(['A0', 'A1', 'C0', 'A2']);
      const last = mine.find((e) => e.type === 'A2')!;
      expect(comparePositions(last.position, outcomes[3].result.position)).toBe(0);
    });

    it('answers a retried multi-stream append by its event ids', async () => {
      const [a, b] = [stream(), stream()];
      const ids = [randomUUID(), randomUUID()];
      const first = await store.appendToStreams([
        { stream: a, events: [ev('A', 0, ids[0])], expectedRevision: 'no_stream' },
        { stream: b, events: [ev('B', 0, ids[1])], expectedRevision: 'no_stream' },
      ]);
      const again = await store.appendToStreams([
        { stream: a, events: [ev('A', 0, ids[0])], expectedRevision: 'no_stream' },
        { stream: b, events: [ev('B', 0, ids[1])], expectedRevision: 'no_stream' },
      ]);
      expect(first.every((o) => o.ok)).toBe(true);
      expect(again.map((o) => o.ok)).toEqual([true, true]);
      if (!first[1].ok || !again[1].ok) throw new Error('unreachable');
      expect(comparePositions(again[1].result.position, first[1].result.position)).toBe(0);
      expect((await store.readStream(b)).map((e) => e.id)).toEqual([ids[1]]);
    });

    it('lets exactly one of many concurrent multi-stream appends win a shared expected revision', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('A', 0)], { expectedRevision: 'no_stream' });
      const others = Array.from({ length: 8 }, () => stream());
      const results = await Promise.all(
        others.map((o, i) =>
          store.appendToStreams([
            { stream: o, events: [ev('Own', i)], expectedRevision: 'no_stream' },
            { stream: s, events: [ev('B', i)], expectedRevision: 0 },
          ]),
        ),
      );
      expect(results.filter((r) => r[1].ok)).toHaveLength(1);
      for (const r of results) {
        expect(r[0].ok).toBe(true);
        if (!r[1].ok) expect(r[1].error).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await store.readStream(s)).toHaveLength(2);
      for (const o of others) expect(await store.readStream(o)).toHaveLength(1);
    });

    it('subscribes from a position: catch-up, then live', async () => {
      const s = stream();
      const head = await store.headPosition();
      await store.appendToStream(s, [ev('Before', 1)]);
      const controller = new AbortController();
      const seen: RecordedEvent[] = [];
      const done = (async () => {
        for await (const e of store.subscribeToAll({ after: head, signal: controller.signal })) {
          if (e.streamId !== s) continue;
          seen.push(e);
          if (seen.length === 3) controller.abort();
        }
      })();
      await store.appendToStream(s, [ev('Live', 2)]);
      await store.appendToStream(s, [ev('Live', 3)]);
      await withTimeout(done, 10_000);
      expect(seen.map((e) => e.data.n)).toEqual([1, 2, 3]);
    });

    it('never lets a subscriber skip events under many concurrent appenders', async () => {
      const head = await store.headPosition();
      const tag = randomUUID();
      const controller = new AbortController();
      const total = 20 * 10;
      const seen: RecordedEvent[] = [];
      const consumer = (async () => {
        for await (const e of store.subscribeToAll({ after: head, signal: controller.signal })) {
          if (e.data.tag !== tag) continue;
          seen.push(e);
          if (seen.length === total) controller.abort();
        }
      })();
      await Promise.all(
        Array.from({ length: 20 }, async (_, w) => {
          const s = stream('gap');
          for (let i = 0; i < 10; i++) {
            await store.appendToStream(s, [{ type: 'Tick', data: { tag, w, i }, metadata: { orgId: 'org-contract' } }]);
          }
        }),
      );
      await withTimeout(consumer, 20_000);
      expect(new Set(seen.map((e) => e.id)).size).toBe(total);
      for (let i = 1; i < seen.length; i++)
        expect(comparePositions(seen[i - 1].position, seen[i].position)).toBeLessThan(0);
      const fromLog = await readAllAfter(store, head, (e) => e.data.tag === tag);
      expect(fromLog.map((e) => e.id)).toEqual(seen.map((e) => e.id));
    });
  });
}

export async function readAllAfter(
  store: EventStore,
  after: Position,
  keep: (e: RecordedEvent) => boolean,
): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let pos = after;
  for (;;) {
    const batch = await store.readAll({ after: pos, maxCount: 200 });
    if (!batch.length) return out;
    out.push(...batch.filter(keep));
    pos = batch[batch.length - 1].position;
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<T>((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

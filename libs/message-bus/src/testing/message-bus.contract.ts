import { randomUUID } from 'crypto';
import { BusMessage, MessageBus } from '../message-bus.port';

export function messageBusContract(
  name: string,
  open: () => Promise<{ bus: MessageBus; prefix: string; close: () => Promise<void> }>,
): void {
  describe(`MessageBus contract: ${name}`, () => {
    let prefix: string;
    let bus: MessageBus;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ bus, close, prefix } = await open());
    });
    afterAll(async () => close());

    const until = async (cond: () => boolean, ms = 5000) => {
      const end = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > end) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    it('delivers published messages to matching wildcard subscribers only', async () => {
      const org = randomUUID();
      const got: BusMessage[] = [];
      const other: BusMessage[] = [];
      const sub = await bus.subscribe(`${prefix}.${org}.*.>`, (m) => void got.push(m));
      const sub2 = await bus.subscribe(`${prefix}.${org}.store.*`, (m) => void other.push(m));
      await bus.publish(`${prefix}.${org}.api_key.ApiKeyCreated`, { n: 1 }, { msgId: randomUUID() });
      await bus.publish(`${prefix}.${randomUUID()}.api_key.ApiKeyCreated`, { n: 2 }, { msgId: randomUUID() });
      await bus.publish(`${prefix}.${org}.store.StoreCreated`, { n: 3 }, { msgId: randomUUID() });
      await until(() => got.length === 2 && other.length === 1);
      expect(got.map((m) => (m.data as { n: number }).n)).toEqual([1, 3]);
      expect(other[0].subject).toBe(`${prefix}.${org}.store.StoreCreated`);
      await sub.unsubscribe();
      await sub2.unsubscribe();
    });

    it('drops a repeated message id within the de-duplication window', async () => {
      const org = randomUUID();
      const got: BusMessage[] = [];
      const sub = await bus.subscribe(`${prefix}.${org}.>`, (m) => void got.push(m));
      const id = randomUUID();
      expect(await bus.publish(`${prefix}.${org}.x.Y`, { n: 1 }, { msgId: id })).toEqual({ duplicate: false });
      expect(await bus.publish(`${prefix}.${org}.x.Y`, { n: 1 }, { msgId: id })).toEqual({ duplicate: true });
      await bus.publish(`${prefix}.${org}.x.Y`, { n: 2 }, { msgId: randomUUID() });
      await until(() => got.length >= 2);
      await new Promise((r) => setTimeout(r, 100));
      expect(got.map((m) => m.id)).toEqual([id, got[1].id]);
      expect(got).toHaveLength(2);
      await sub.unsubscribe();
    });

    it('replays retained messages to a subscriber asking for all, then goes live', async () => {
      const org = randomUUID();
      await bus.publish(`${prefix}.${org}.a.B`, { n: 1 }, { msgId: randomUUID() });
      const got: number[] = [];
      const sub = await bus.subscribe<{ n: number }>(`${prefix}.${org}.>`, (m) => void got.push(m.data.n), {
        deliver: 'all',
      });
      await bus.publish(`${prefix}.${org}.a.B`, { n: 2 }, { msgId: randomUUID() });
      await until(() => got.length === 2);
      expect(got).toEqual([1, 2]);
      await sub.unsubscribe();
      await bus.publish(`${prefix}.${org}.a.B`, { n: 3 }, { msgId: randomUUID() });
      await new Promise((r) => setTimeout(r, 100));
      expect(got).toEqual([1, 2]);
    });
  });
}

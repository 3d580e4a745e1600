import { RecordedEvent } from '@larder/kernel';
import { foldStream } from '@larder/event-store';
import { InMemoryEventStore } from '@larder/event-store/in-memory/in-memory.event-store';
import { storeDecider } from '../store.aggregate';
import { storeStream } from '../streams';
import { StoreCopyReactor } from './store-copy.reactor';

const ORG = '11111111-1111-4111-8111-111111111111';
const SOURCE = '22222222-2222-4222-8222-222222222222';
const TARGET = '33333333-3333-4333-8333-333333333333';
const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
const meta = { orgId: ORG, actor: 'test' };

function created(storeId: string, name: string) {
  return {
    type: 'StoreCreated',
    data: {
      storeId,
      organizationId: ORG,
      name,
      description: null,
      isPublic: false,
      license: null,
      metadata: {},
      config: { contextualization: false, save_content: true },
      expiresAfter: null,
      at,
    },
    metadata: meta,
  };
}
const copy = (type: 'StoreCopyStarted' | 'StoreCopyFinished', storeId: string, role: string, peer: string) => ({
  type,
  data: { storeId, role, peerStoreId: peer, ...(type === 'StoreCopyFinished' ? { error: null } : {}), at },
  metadata: meta,
});

async function setUp(): Promise<{ store: InMemoryEventStore; reactor: StoreCopyReactor; started: RecordedEvent }> {
  const store = new InMemoryEventStore();
  await store.appendToStream(storeStream(SOURCE), [created(SOURCE, 'original')]);
  await store.appendToStream(storeStream(TARGET), [created(TARGET, 'duplicate')]);
  await store.appendToStream(storeStream(TARGET), [copy('StoreCopyStarted', TARGET, 'target', SOURCE)]);
  const [started] = await store.readStream(storeStream(TARGET), { fromRevision: 1 });
  let n = 0;
  const reactor = new StoreCopyReactor(
    store,
    { waitFor: async () => undefined },
    { completedFilesOf: async () => [] },
    { now: () => new Date(at) },
    { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, secret: () => 'unused' },
  );
  return { store, reactor, started: started };
}

const copyingOf = async (store: InMemoryEventStore, id: string) =>
  (await foldStream(store, storeStream(id), storeDecider)).copying;

describe('StoreCopyReactor', () => {
  it('releases the source before it finishes the target, so a finished target implies a released source', async () => {
    const { store, reactor, started } = await setUp();
    await reactor.handle(started);
    expect(await copyingOf(store, SOURCE)).toBeNull();
    expect(await copyingOf(store, TARGET)).toBeNull();
    const finished = (await store.readAll({})).filter((e) => e.type === 'StoreCopyFinished').map((e) => e.streamId);
    expect(finished).toEqual([storeStream(SOURCE), storeStream(TARGET)]);
  });

  it('on a re-delivery after the target finished, releases a source still marked as copying into it', async () => {
    const { store, reactor, started } = await setUp();
    await store.appendToStream(storeStream(SOURCE), [copy('StoreCopyStarted', SOURCE, 'source', TARGET)]);
    await store.appendToStream(storeStream(TARGET), [copy('StoreCopyFinished', TARGET, 'target', SOURCE)]);
    expect(await copyingOf(store, SOURCE)).not.toBeNull();
    await reactor.handle(started);
    expect(await copyingOf(store, SOURCE)).toBeNull();
  });
});

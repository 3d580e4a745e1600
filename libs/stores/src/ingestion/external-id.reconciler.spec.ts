import type { RecordedEvent } from '@larder/kernel';
import { ExternalIdReconciler } from './external-id.reconciler';
import { storeExternalIdStream, storeFileStream } from '../streams';

const STORE = 'store-1';
const ID = 'docs/a.md';
let revision = 0;
const ev = (type: string, data: Record<string, unknown>) =>
  ({ type, data, revision: revision++ }) as unknown as RecordedEvent;
const added = (fileId: string, externalId: string | null) =>
  ev('StoreFileAdded', { fileId, storeId: STORE, organizationId: 'org', generation: 1, externalId, metadata: null });
const claimed = (fileId: string) =>
  ev('StoreExternalIdClaimed', { fileId, storeId: STORE, externalId: ID, at: new Date(0).toISOString() });

/** A reconciler over streams held in a map: the claim stream and each store file's own stream. */
function reconcilerOver(streams: Map<string, RecordedEvent[]>, carrying: string[]) {
  const removed: string[] = [];
  const reader = {
    sharedExternalIds: async () => [{ organizationId: 'org', storeId: STORE, externalId: ID }],
    byExternalId: async () => carrying.map((fileId) => ({ fileId })),
  };
  const writes = { store: { readStream: async (s: string) => streams.get(s) ?? [] } };
  const files = {
    decide: async (c: { fileId: string }) => {
      removed.push(c.fileId);
      streams.get(storeFileStream(STORE, c.fileId))!.push(ev('StoreFileRemoved', { fileId: c.fileId }));
    },
  };
  const r = new ExternalIdReconciler({ runWorker: true } as never, reader as never, writes as never, files as never);
  return { r, removed };
}

describe('ExternalIdReconciler: one store file keeps an external id after a crash cut an attach short', () => {
  it('removes the file the claim took the id over from (the claimant was added, the removal never ran)', async () => {
    const streams = new Map([
      [storeExternalIdStream(STORE, ID), [claimed('old'), claimed('new')]],
      [storeFileStream(STORE, 'old'), [added('old', ID)]],
      [storeFileStream(STORE, 'new'), [added('new', ID)]],
    ]);
    const { r, removed } = reconcilerOver(streams, ['old', 'new']);
    await expect(r.reconcile()).resolves.toBe(1);
    expect(removed).toEqual(['old']);
  });

  it('where the holder is gone, the latest claimant still carrying the id keeps it', async () => {
    const streams = new Map([
      [storeExternalIdStream(STORE, ID), [claimed('a'), claimed('b'), claimed('gone')]],
      [storeFileStream(STORE, 'a'), [added('a', ID)]],
      [storeFileStream(STORE, 'b'), [added('b', ID)]],
      [storeFileStream(STORE, 'gone'), [added('gone', ID), ev('StoreFileRemoved', {})]],
    ]);
    const { r, removed } = reconcilerOver(streams, ['a', 'b']);
    await r.reconcile();
    expect(removed).toEqual(['a']);
  });

  it('leaves a claim whose add has not come yet alone, and files that no longer carry the id', async () => {
    const streams = new Map([
      [storeExternalIdStream(STORE, ID), [claimed('held'), claimed('adding')]],
      [storeFileStream(STORE, 'held'), [added('held', ID)]],
      [storeFileStream(STORE, 'other'), [added('other', 'another-id')]],
    ]);
    const { r, removed } = reconcilerOver(streams, ['held', 'other']);
    await expect(r.reconcile()).resolves.toBe(0);
    expect(removed).toEqual([]);
  });
});

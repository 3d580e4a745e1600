/** A stores history written through the store, store-file and batch deciders, with the ids and row lookups its projection specs use. */
import { Row, TestEventLog } from '@larder/kernel/testing';
import { StoreCommand, storeDecider } from '../store.aggregate';
import { StoreFileCommand, storeFileDecider } from '../store-file.aggregate';
import { storeFileBatchStream, storeFileStream, storeStream } from '../streams';
import { StoreFileBatchCommand, storeFileBatchDecider } from '../store-file-batch.aggregate';
import { StoreFileAdded } from '../events';

export const ORG = '11111111-1111-4111-8111-111111111111';
export const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
export const store = (n: number) => `5704e000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
export const file = (n: number) => `f11e0000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
export const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
export const config = { contextualization: false, save_content: true };

type Cmd<C> = C extends { now: Date } ? Omit<C, 'now'> : never;

/** A history written through the store and store-file deciders, as the writers and the ingestion worker do. */
export class History {
  readonly log = new TestEventLog();
  private clock = 0;
  private now = () => t(++this.clock);

  store(c: Cmd<StoreCommand>) {
    return this.log.decide(
      storeDecider,
      storeStream(c.storeId),
      { ...c, now: this.now() },
      { orgId: c.organizationId, actor: 'key' },
    );
  }
  createStore(n: number, name: string, organizationId = ORG) {
    return this.store({
      type: 'CreateStore',
      storeId: store(n),
      organizationId,
      name,
      description: null,
      isPublic: false,
      license: null,
      metadata: null,
      config,
      expiresAfter: null,
    });
  }
  batch(c: Cmd<StoreFileBatchCommand>) {
    return this.log.decide(
      storeFileBatchDecider,
      storeFileBatchStream(c.batchId),
      { ...c, now: this.now() },
      { orgId: c.organizationId, actor: 'key' },
    );
  }
  file(c: Cmd<StoreFileCommand>) {
    return this.log.decide(
      storeFileDecider,
      storeFileStream(c.storeId, c.fileId),
      { ...c, now: this.now() },
      { orgId: c.organizationId, actor: 'key' },
    );
  }
  addFile(
    s: number,
    f: number,
    o: {
      organizationId?: string;
      version?: number;
      externalId?: string | null;
      copiedFrom?: StoreFileAdded['data']['copiedFrom'];
    } = {},
  ) {
    const v = o.version ?? 1;
    return this.file({
      type: 'AddStoreFile',
      storeId: store(s),
      organizationId: o.organizationId ?? ORG,
      fileId: file(f),
      filename: `doc${f}.md`,
      mimeType: 'text/markdown',
      bytes: 1000 * f + v,
      sha256: `sha-${f}-${v}`,
      blobKey: `files/${f}/${v}`,
      fileVersion: v,
      metadata: { n: f },
      externalId: o.externalId ?? null,
      parsingStrategy: 'fast',
      contextualization: false,
      ...(o.copiedFrom ? { copiedFrom: o.copiedFrom } : {}),
    });
  }
  ingest(s: number, f: number, generation = 1) {
    const ids = { storeId: store(s), organizationId: ORG, fileId: file(f), generation, workerId: 'w1' };
    this.file({ type: 'StartIngestion', ...ids, leaseMs: 600_000 });
    this.file({ type: 'RecordParsed', ...ids, chunksKey: `chunks/${f}`, chunkCount: 4, usageTokens: 90, parseMs: 3 });
    this.file({
      type: 'RecordIngested',
      ...ids,
      filename: `doc${f}.md`,
      chunksKey: `chunks/${f}`,
      vectorsKey: `vectors/${f}`,
      model: 'use-lite',
      dimensions: 512,
      chunkCount: 4,
      usageTokens: 90,
      mode: 'fast',
      contextualization: false,
      queueMs: 1,
      ingestionMs: 2,
      totalMs: 3,
    });
  }
}

export const byId = (rows: Row[], id: string) => rows.find((r) => r.id === id);
export const fileRow = (rows: Row[], s: number, f: number) =>
  rows.find((r) => r.store_id === store(s) && r.file_id === file(f));

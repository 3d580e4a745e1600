/** Store-file decider fixtures: ids, clock, the events a file's life records and the commands that drive it. */
import { StoreFileCommand } from '../store-file.aggregate';
import { StoreFileAdded, StoreFileEvent } from '../events';

export const ORG = '11111111-1111-4111-8111-111111111111';
export const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
export const STORE = '22222222-2222-4222-8222-222222222222';
export const FILE = '33333333-3333-4333-8333-333333333333';
export const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
export const at = (s: number) => t(s).toISOString();

export const content = {
  filename: 'guide.md',
  mimeType: 'text/markdown',
  bytes: 120,
  sha256: 'abc',
  blobKey: 'files/f1',
  fileVersion: 1,
};
export const ids = { storeId: STORE, fileId: FILE };
export const added = (
  generation = 1,
  s = 0,
  copiedFrom: StoreFileAdded['data']['copiedFrom'] = null,
): StoreFileEvent => ({
  type: 'StoreFileAdded',
  data: {
    ...ids,
    organizationId: ORG,
    ...content,
    metadata: { lang: 'en' },
    externalId: 'ext-1',
    parsingStrategy: 'fast',
    contextualization: false,
    copiedFrom,
    generation,
    at: at(s),
  },
});
export const started = (generation = 1, attempt = 1, workerId = 'w1', s = 10, leaseS = 70): StoreFileEvent => ({
  type: 'StoreFileIngestionStarted',
  data: { ...ids, generation, attempt, workerId, leaseExpiresAt: at(leaseS), at: at(s) },
});
export const parsed: StoreFileEvent = {
  type: 'StoreFileParsed',
  data: {
    ...ids,
    generation: 1,
    chunksKey: 'artifacts/chunks/c',
    chunkCount: 3,
    usageTokens: 40,
    parseMs: 5,
    at: at(11),
  },
};
export const removed = (reason: 'deleted' | 'overwritten' = 'deleted', s = 30): StoreFileEvent => ({
  type: 'StoreFileRemoved',
  data: { ...ids, organizationId: ORG, reason, at: at(s) },
});
export const ingestedData = {
  ...ids,
  generation: 1,
  filename: 'guide.md',
  chunksKey: 'artifacts/chunks/c',
  vectorsKey: 'artifacts/vectors/v',
  model: 'm',
  dimensions: 4,
  chunkCount: 3,
  usageTokens: 40,
  mode: 'fast' as const,
  contextualization: false,
  queueMs: 10_000,
  ingestionMs: 2_000,
  totalMs: 12_000,
};

export const add = (organizationId = ORG): StoreFileCommand => ({
  type: 'AddStoreFile',
  ...ids,
  organizationId,
  ...content,
  metadata: { lang: 'en' },
  externalId: 'ext-1',
  parsingStrategy: 'fast',
  contextualization: false,
  now: t(0),
});
export const start = (
  o: { generation?: number; workerId?: string; s?: number; organizationId?: string } = {},
): StoreFileCommand => ({
  type: 'StartIngestion',
  ...ids,
  organizationId: o.organizationId ?? ORG,
  generation: o.generation ?? 1,
  workerId: o.workerId ?? 'w1',
  leaseMs: 60_000,
  now: t(o.s ?? 10),
});
export const recordParsed = (workerId = 'w1', generation = 1): StoreFileCommand => ({
  type: 'RecordParsed',
  ...ids,
  organizationId: ORG,
  generation,
  workerId,
  chunksKey: 'artifacts/chunks/c',
  chunkCount: 3,
  usageTokens: 40,
  parseMs: 5,
  now: t(11),
});
export const recordIngested = (workerId = 'w1', generation = 1): StoreFileCommand => ({
  type: 'RecordIngested',
  organizationId: ORG,
  workerId,
  ...ingestedData,
  generation,
  now: t(12),
});
export const recordFailed = (retryAt: Date | null, workerId = 'w1'): StoreFileCommand => ({
  type: 'RecordIngestionFailed',
  ...ids,
  organizationId: ORG,
  generation: 1,
  workerId,
  error: { message: 'parser crashed', code: 'parse_error' },
  retryAt,
  now: t(12),
});
export const cancel = (organizationId = ORG): StoreFileCommand => ({
  type: 'CancelStoreFileIngestion',
  ...ids,
  organizationId,
  now: t(20),
});
export const cancelled = (generation = 1): StoreFileEvent => ({
  type: 'StoreFileIngestionCancelled',
  data: { ...ids, organizationId: ORG, generation, at: at(20) },
});
export const remove = (organizationId = ORG): StoreFileCommand => ({
  type: 'RemoveStoreFile',
  ...ids,
  organizationId,
  reason: 'deleted',
  now: t(30),
});
export const reingest = (organizationId = ORG): StoreFileCommand => ({
  type: 'ReingestStoreFile',
  ...ids,
  organizationId,
  filename: 'guide.md',
  externalId: 'ext-2',
  metadata: { lang: 'fr' },
  billable: false,
  now: t(40),
});

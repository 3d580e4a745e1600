import type { StoreRow } from '@larder/projections/stores/stores.reader';
import type { StoreFileRow } from '@larder/projections/stores/store-files.reader';
import type { StoreFileBatchRow } from '@larder/projections/stores/store-file-batches.reader';
import { derivedStoreName } from '../stores.writer';
import { toVectorStore, toVectorStoreFile, toVectorStoreFileBatch } from './vector-store.response';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const counts = { pending: 0, in_progress: 0, cancelled: 0, completed: 0, failed: 0, total: 0 };
const store = (o: Partial<StoreRow> = {}): StoreRow => ({
  id: 'a1b2c3d4-0000-4000-8000-000000000000',
  organizationId: 'o',
  name: 'sourdough-notes-a1b2c3d4',
  displayName: 'Sourdough Notes',
  description: null,
  isPublic: false,
  license: null,
  metadata: null,
  config: { contextualization: false, save_content: true },
  expiresAfter: null,
  status: 'completed',
  copyState: null,
  createdAt: t0,
  updatedAt: t0,
  lastActiveAt: new Date(t0.getTime() + 5000),
  fileCounts: counts,
  usageBytes: 0,
  usageTokens: 0,
  ...o,
});

describe('OpenAI wire shapes of stores', () => {
  it('a store: unix seconds, its display name (else its identifier), OpenAI counts and status', () => {
    expect(toVectorStore(store())).toMatchObject({
      object: 'vector_store',
      name: 'Sourdough Notes',
      created_at: 1767225600,
      last_active_at: 1767225605,
      metadata: {},
      status: 'completed',
    });
    expect(toVectorStore(store({ displayName: null })).name).toBe('sourdough-notes-a1b2c3d4');
    const busy = toVectorStore(
      store({ fileCounts: { ...counts, pending: 2, in_progress: 1, completed: 3, total: 6 } }),
    );
    expect(busy).toMatchObject({
      status: 'in_progress',
      file_counts: { in_progress: 3, completed: 3, failed: 0, cancelled: 0, total: 6 },
    });
    expect(toVectorStore(store({ status: 'expired' })).status).toBe('expired');
    expect(toVectorStore(store({ expiresAfter: { anchor: 'last_active_at', days: 2 } })).expires_at).toBe(
      1767225605 + 2 * 86_400,
    );
  });

  it('a store file: OpenAI statuses and error codes, attributes, the chunk size it is cut with', () => {
    const f = {
      storeId: 's',
      fileId: 'f',
      bytes: 10,
      createdAt: t0,
      metadata: { a: 1 },
      parsingStrategy: 'fast',
      chunking: null,
      status: 'pending',
      lastError: null,
    } as unknown as StoreFileRow;
    expect(toVectorStoreFile(f)).toMatchObject({
      object: 'vector_store.file',
      status: 'in_progress',
      attributes: { a: 1 },
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 512, chunk_overlap_tokens: 48 } },
    });
    const failed = (code: string) =>
      toVectorStoreFile({ ...f, status: 'failed', lastError: { code, message: 'm' } }).last_error?.code;
    expect([
      failed('unsupported_file_type'),
      failed('parse_error'),
      failed('file_missing'),
      failed('embedding_failed'),
    ]).toEqual(['unsupported_file', 'invalid_file', 'invalid_file', 'server_error']);
    expect(
      toVectorStoreFile({ ...f, chunking: { maxTokens: 200, overlapTokens: 10 } }).chunking_strategy.static,
    ).toEqual({ max_chunk_size_tokens: 200, chunk_overlap_tokens: 10 });
  });

  it('a batch: in progress while a file is, then cancelled, failed (all failed) or completed', () => {
    const b = (c: Partial<StoreFileBatchRow['fileCounts']>, cancelledAt: Date | null = null) =>
      toVectorStoreFileBatch({
        id: 'b',
        storeId: 's',
        organizationId: 'o',
        fileIds: [],
        cancelledAt,
        createdAt: t0,
        fileCounts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0, ...c },
      }).status;
    expect(b({ in_progress: 1, total: 2, completed: 1 })).toBe('in_progress');
    expect(b({ cancelled: 1, completed: 1, total: 2 }, t0)).toBe('cancelled');
    expect(b({ failed: 2, total: 2 })).toBe('failed');
    expect(b({ failed: 1, completed: 1, total: 2 })).toBe('completed');
  });

  it('derives a store identifier from a free-text name: a slug, then the id’s first 8 characters', () => {
    const id = 'a1b2c3d4-0000-4000-8000-000000000000';
    expect(derivedStoreName('Sourdough Notes', id)).toBe('sourdough-notes-a1b2c3d4');
    expect(derivedStoreName('  Crème brûlée — v2.0!  ', id)).toBe('creme-brulee-v2.0-a1b2c3d4');
    expect(derivedStoreName('日本語', id)).toBe('store-a1b2c3d4');
    expect(derivedStoreName('x'.repeat(300), id)).toMatch(/^x{100}-a1b2c3d4$/);
  });
});

import { EntityManager } from 'typeorm';
import { RecordedEvent } from '@larder/kernel';
import type { StoreFileAdded } from '@larder/stores/events';
import { STORE_FILES_TABLE as F } from './stores.tables';

/**
 * An event that updates one store file's row: what it sets (from the columns `v.a`, `v.b`, … of its
 * values, with these types) besides `updated_at` and `revision`, guarded by the stream revision.
 */
interface FileUpdate {
  sets: string;
  types: readonly string[];
  values(d: Record<string, unknown>): unknown[];
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

const UPDATES: Record<string, FileUpdate> = {
  StoreFileMetadataUpdated: { sets: `metadata = v.a`, types: ['jsonb'], values: (d) => [json(d.metadata)] },
  StoreFileIngestionStarted: {
    sets: `status = 'in_progress', attempt = v.a, worker_id = v.b, lease_expires_at = v.c, retry_at = NULL`,
    types: ['int', 'text', 'timestamptz'],
    values: (d) => [d.attempt, d.workerId, d.leaseExpiresAt],
  },
  StoreFileIngestionLeaseRenewed: {
    sets: `lease_expires_at = v.a`,
    types: ['timestamptz'],
    values: (d) => [d.leaseExpiresAt],
  },
  StoreFileParsed: {
    sets: `chunks_key = v.a, chunk_count = v.b, usage_tokens = v.c`,
    types: ['text', 'int', 'bigint'],
    values: (d) => [d.chunksKey, d.chunkCount, d.usageTokens],
  },
  StoreFileIngested: {
    sets: `status = 'completed', last_error = NULL, worker_id = NULL, lease_expires_at = NULL, chunks_key = v.a, vectors_key = v.b, model = v.c, chunk_count = v.d, usage_tokens = v.e`,
    types: ['text', 'text', 'text', 'int', 'bigint'],
    values: (d) => [d.chunksKey, d.vectorsKey, d.model, d.chunkCount, d.usageTokens],
  },
  StoreFileIngestionFailed: {
    sets: `status = CASE WHEN v.b IS NULL THEN 'failed' ELSE 'pending' END, last_error = v.a, retry_at = v.b, worker_id = NULL, lease_expires_at = NULL`,
    types: ['jsonb', 'timestamptz'],
    values: (d) => [JSON.stringify(d.error), d.retryAt],
  },
  StoreFileReingestionRequested: {
    sets: `generation = v.a, status = 'pending', last_error = NULL, attempt = 0, worker_id = NULL, lease_expires_at = NULL, retry_at = NULL, chunks_key = NULL, vectors_key = NULL, model = NULL, chunk_count = 0, usage_tokens = 0`,
    types: ['int'],
    values: (d) => [d.generation],
  },
  StoreFileIngestionCancelled: {
    sets: `status = 'cancelled', worker_id = NULL, lease_expires_at = NULL, retry_at = NULL, chunk_count = 0`,
    types: [],
    values: () => [],
  },
};

/** Most events in one statement (at most 25 parameters an event). */
const MAX_RUN = 500;

/**
 * The store files' rows a batch adds and updates, written together: events that add or update a store
 * file's row are kept (`add`) while their files differ, then written (`flush`) in one statement per
 * event type (the rows differ, so their order does not matter). A file seen again, or any other event,
 * flushes first: the rows are those of the events applied one by one.
 */
export class StoreFileUpdates {
  private readonly pending: RecordedEvent[] = [];
  private readonly files = new Set<string>();

  static handles(type: string): boolean {
    return type === 'StoreFileAdded' || type in UPDATES;
  }

  async add(event: RecordedEvent, m: EntityManager): Promise<void> {
    const d = event.data as { storeId: string; fileId: string };
    const key = `${d.storeId}/${d.fileId}`;
    if (this.files.has(key) || this.pending.length >= MAX_RUN) await this.flush(m);
    this.pending.push(event);
    this.files.add(key);
  }

  async flush(m: EntityManager): Promise<void> {
    if (!this.pending.length) return;
    const byType = new Map<string, RecordedEvent[]>();
    for (const e of this.pending) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
    this.pending.length = 0;
    this.files.clear();
    for (const [type, events] of byType)
      await (type === 'StoreFileAdded' ? insert(m, events) : update(m, UPDATES[type], events));
  }
}

/** Store files added (or added again: a later generation replaces the row), one row each. */
async function insert(m: EntityManager, events: RecordedEvent[]): Promise<void> {
  const params: unknown[] = [];
  const rows = events.map((e) => {
    const d = e.data as unknown as StoreFileAdded['data'];
    const copied = d.copiedFrom ?? null;
    const first = params.length;
    params.push(
      d.storeId,
      d.fileId,
      d.organizationId,
      d.generation,
      d.filename,
      d.mimeType,
      d.bytes,
      d.sha256,
      d.blobKey,
      d.fileVersion,
      json(d.metadata),
      d.externalId,
      d.parsingStrategy,
      JSON.stringify(d.contextualization),
      copied ? 'completed' : 'pending',
      copied?.chunksKey ?? null,
      copied?.vectorsKey ?? null,
      copied?.model ?? null,
      copied?.chunkCount ?? 0,
      copied?.usageTokens ?? 0,
      d.at,
      d.at,
      e.revision,
      json(d.chunking),
      d.bucketId ?? null,
    );
    return `(${Array.from({ length: params.length - first }, (_, c) => `$${first + c + 1}`).join(', ')})`;
  });
  await m.query(
    `INSERT INTO ${F} (store_id, file_id, organization_id, generation, filename, mime_type, bytes, sha256, blob_key, file_version, metadata,
        external_id, parsing_strategy, contextualization, status, chunks_key, vectors_key, model, chunk_count, usage_tokens, created_at, updated_at, revision, chunking, bucket_id)
     VALUES ${rows.join(', ')}
     ON CONFLICT (store_id, file_id) DO UPDATE SET generation = EXCLUDED.generation, filename = EXCLUDED.filename, mime_type = EXCLUDED.mime_type,
        bytes = EXCLUDED.bytes, sha256 = EXCLUDED.sha256, blob_key = EXCLUDED.blob_key, file_version = EXCLUDED.file_version, metadata = EXCLUDED.metadata,
        external_id = EXCLUDED.external_id, parsing_strategy = EXCLUDED.parsing_strategy, chunking = EXCLUDED.chunking, contextualization = EXCLUDED.contextualization,
        status = EXCLUDED.status, last_error = NULL, attempt = 0, worker_id = NULL, lease_expires_at = NULL, retry_at = NULL,
        chunks_key = EXCLUDED.chunks_key, vectors_key = EXCLUDED.vectors_key, model = EXCLUDED.model, chunk_count = EXCLUDED.chunk_count,
        usage_tokens = EXCLUDED.usage_tokens, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision,
        bucket_id = EXCLUDED.bucket_id
      WHERE ${F}.revision < EXCLUDED.revision`,
    params,
  );
}

async function update(m: EntityManager, u: FileUpdate, events: RecordedEvent[]): Promise<void> {
  const types = ['uuid', 'uuid', 'timestamptz', 'bigint', ...u.types];
  const params: unknown[] = [];
  const rows = events.map((e) => {
    const d = e.data;
    const first = params.length;
    params.push(d.storeId, d.fileId, d.at, e.revision, ...u.values(d));
    return `(${types.map((t, c) => `$${first + c + 1}::${t}`).join(', ')})`;
  });
  const extra = u.types.map((_, c) => String.fromCharCode(97 + c));
  await m.query(
    `UPDATE ${F} SET ${u.sets}, updated_at = v.at, revision = v.rev
      FROM (VALUES ${rows.join(', ')}) AS v(store_id, file_id, at, rev${extra.map((c) => `, ${c}`).join('')})
      WHERE ${F}.store_id = v.store_id AND ${F}.file_id = v.file_id AND ${F}.revision < v.rev`,
    params,
  );
}

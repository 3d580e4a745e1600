import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import {
  STORE_EVENT_TYPES,
  STORE_FILE_BATCH_EVENT_TYPES,
  STORE_FILE_EVENT_TYPES,
  StoreEvent,
  StoreFileBatchEvent,
  StoreFileEvent,
} from '@larder/stores/events';
import { Projection } from '../runner/projection';
import { StoreFileUpdates } from './store-file-updates';
import { STORE_FILE_BATCHES_TABLE as B, STORE_FILES_TABLE as F, STORES_TABLE as S } from './stores.tables';

/**
 * `stores`: one row per live store, one per live store file and one per file batch of a live store.
 * File counts and usage (of a store, of a batch) are computed from the store-file rows when read, so
 * they are exact by construction. Rows are guarded by the stream revision (idempotent replays).
 * Version 2 added `display_name`, the store files' `chunking` and the file batches.
 */
export class StoresProjection implements Projection {
  readonly name = 'stores';
  readonly version = 2;
  readonly tables = [S, F, B];
  readonly handles = [...STORE_EVENT_TYPES, ...STORE_FILE_EVENT_TYPES, ...STORE_FILE_BATCH_EVENT_TYPES];

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await m.query(`CREATE TABLE IF NOT EXISTS ${S} (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, name text NOT NULL, display_name text, description text,
      is_public boolean NOT NULL, license text, metadata jsonb, config jsonb NOT NULL, expires_after jsonb,
      status text NOT NULL, copy_state jsonb, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
      last_active_at timestamptz NOT NULL, revision bigint NOT NULL)`);
    await m.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${S}_org_name ON ${S} (organization_id, name)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${S}_org_created ON ${S} (organization_id, created_at DESC, id DESC)`);
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${S}_name_trgm ON ${S} USING gin ((lower(name || ' ' || coalesce(description, ''))) gin_trgm_ops)`,
    );
    await m.query(`CREATE TABLE IF NOT EXISTS ${F} (
      store_id uuid NOT NULL, file_id uuid NOT NULL, organization_id uuid NOT NULL, generation int NOT NULL,
      filename text NOT NULL, mime_type text NOT NULL, bytes bigint NOT NULL, sha256 text NOT NULL, blob_key text NOT NULL,
      file_version int NOT NULL, metadata jsonb, external_id text, parsing_strategy text NOT NULL, chunking jsonb, contextualization jsonb,
      status text NOT NULL, last_error jsonb, attempt int NOT NULL DEFAULT 0, worker_id text, lease_expires_at timestamptz,
      retry_at timestamptz, chunks_key text, vectors_key text, model text, chunk_count int NOT NULL DEFAULT 0,
      usage_tokens bigint NOT NULL DEFAULT 0, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
      revision bigint NOT NULL, PRIMARY KEY (store_id, file_id))`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${F}_store_created ON ${F} (store_id, created_at DESC, file_id DESC)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${F}_file ON ${F} (organization_id, file_id)`);
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${F}_due ON ${F} (status, created_at) WHERE status IN ('pending', 'in_progress')`,
    );
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${F}_external ON ${F} (store_id, external_id) WHERE external_id IS NOT NULL`,
    );
    await m.query(`CREATE TABLE IF NOT EXISTS ${B} (
      id uuid PRIMARY KEY, store_id uuid NOT NULL, organization_id uuid NOT NULL, file_ids uuid[] NOT NULL,
      cancelled_at timestamptz, created_at timestamptz NOT NULL, revision bigint NOT NULL)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${B}_store ON ${B} (store_id)`);
    // buckets: no store had a bucket before, so the added columns are right for every existing row (null)
    await m.query(`ALTER TABLE ${S} ADD COLUMN IF NOT EXISTS bucket_id uuid`);
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${S}_bucket ON ${S} (organization_id, bucket_id) WHERE bucket_id IS NOT NULL`,
    );
    await m.query(`ALTER TABLE ${F} ADD COLUMN IF NOT EXISTS bucket_id uuid`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    await this.applyBatch([event], m);
  }

  /**
   * The batch's events in order, with the stores' activity times (`touch`: a later time of a file
   * added, updated or removed) written once per store at the end, or before the next store event,
   * which may set or read that time itself: the rows of `apply` event by event, one statement per
   * store instead of one per file.
   */
  async applyBatch(events: RecordedEvent[], m: EntityManager): Promise<void> {
    const touched = new Map<string, string>();
    const updates = new StoreFileUpdates();
    for (const e of events) {
      if (StoreFileUpdates.handles(e.type)) await updates.add(e, m);
      else await updates.flush(m);
      if (!FILE_LEVEL.has(e.type)) await touch(m, touched);
      await this.applyOne(e, m, touched);
    }
    await updates.flush(m);
    await touch(m, touched);
  }

  private async applyOne(event: RecordedEvent, m: EntityManager, touched: Map<string, string>): Promise<void> {
    const rev = event.revision;
    const e = domainEvent<StoreEvent | StoreFileEvent | StoreFileBatchEvent>(event);
    switch (e.type) {
      case 'StoreCreated': {
        const d = e.data;
        // Names are unique on the command side (the store-name claim), so a conflict on (organization,
        // name) only happens when the log is re-applied over rows it already built: a store deleted
        // later whose name a newer store holds now. That insert is a no-op, like one on the same id.
        await m.query(
          `INSERT INTO ${S} (id, organization_id, name, description, is_public, license, metadata, config, expires_after, status, created_at, updated_at, last_active_at, revision, display_name, bucket_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'completed', $10, $10, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
          [
            d.storeId,
            d.organizationId,
            d.name,
            d.description,
            d.isPublic,
            d.license,
            json(d.metadata),
            JSON.stringify(d.config),
            json(d.expiresAfter),
            d.at,
            rev,
            d.displayName ?? null,
            d.bucketId ?? null,
          ],
        );
        return;
      }
      case 'StoreUpdated': {
        const d = e.data;
        const sets: string[] = [];
        const params: unknown[] = [d.storeId, rev, d.at];
        const col = (c: string, v: unknown) => {
          params.push(v);
          sets.push(`${c} = $${params.length}`);
        };
        if (d.name !== undefined) col('name', d.name);
        if (d.displayName !== undefined) col('display_name', d.displayName);
        if (d.description !== undefined) col('description', d.description);
        if (d.isPublic !== undefined) col('is_public', d.isPublic);
        if (d.license !== undefined) col('license', d.license);
        if (d.metadata !== undefined) col('metadata', json(d.metadata));
        if (d.expiresAfter !== undefined) col('expires_after', json(d.expiresAfter));
        await m.query(
          `UPDATE ${S} SET ${[...sets, `status = CASE WHEN status = 'expired' THEN 'completed' ELSE status END`, 'updated_at = $3', 'last_active_at = $3', 'revision = $2'].join(', ')}
            WHERE id = $1 AND revision < $2`,
          params,
        );
        return;
      }
      case 'StoreExpired':
        await m.query(
          `UPDATE ${S} SET status = 'expired', updated_at = $3, revision = $2 WHERE id = $1 AND revision < $2`,
          [e.data.storeId, rev, e.data.at],
        );
        return;
      case 'StoreDeleted':
        await m.query(`DELETE FROM ${B} WHERE store_id = $1`, [e.data.storeId]);
        await m.query(`DELETE FROM ${F} WHERE store_id = $1`, [e.data.storeId]);
        await m.query(`DELETE FROM ${S} WHERE id = $1`, [e.data.storeId]);
        return;
      case 'StoreCopyStarted': {
        const d = e.data;
        const state = {
          role: d.role,
          status: 'in_progress',
          peer_store_id: d.peerStoreId,
          started_at: d.at,
          error: null,
        };
        await m.query(
          `UPDATE ${S} SET copy_state = $3, status = CASE WHEN $4 = 'target' THEN 'in_progress' ELSE status END, updated_at = $5, revision = $2 WHERE id = $1 AND revision < $2`,
          [d.storeId, rev, JSON.stringify(state), d.role, d.at],
        );
        return;
      }
      case 'StoreCopyFinished': {
        const d = e.data;
        // A failed copy stays visible on the target (`status: failed`, `copy_state.error`); a finished one clears it.
        const failedState = d.error
          ? JSON.stringify({ role: d.role, status: 'failed', peer_store_id: d.peerStoreId, error: d.error })
          : null;
        await m.query(
          `UPDATE ${S} SET copy_state = CASE WHEN $3::jsonb IS NULL THEN NULL ELSE $3::jsonb || jsonb_build_object('started_at', copy_state->'started_at') END,
                  status = CASE WHEN $4 = 'target' THEN (CASE WHEN $3::jsonb IS NULL THEN 'completed' ELSE 'failed' END) ELSE status END,
                  updated_at = $5, last_active_at = $5, revision = $2 WHERE id = $1 AND revision < $2`,
          [d.storeId, rev, failedState, d.role, d.at],
        );
        return;
      }
      case 'StoreFileAdded':
        later(touched, e.data.storeId, e.data.at);
        return;
      case 'StoreFileMetadataUpdated':
        later(touched, e.data.storeId, e.data.at);
        return;
      case 'StoreFileRemoved':
        await m.query(`DELETE FROM ${F} WHERE store_id = $1 AND file_id = $2 AND revision < $3`, [
          e.data.storeId,
          e.data.fileId,
          rev,
        ]);
        later(touched, e.data.storeId, e.data.at);
        return;
      case 'StoreFileBatchCreated': {
        const d = e.data;
        // a batch of a store deleted meanwhile is not kept (the store's delete removed its batches)
        await m.query(
          `INSERT INTO ${B} (id, store_id, organization_id, file_ids, created_at, revision)
           SELECT $1, $2, $3, $4::uuid[], $5, $6 WHERE EXISTS (SELECT 1 FROM ${S} WHERE id = $2) ON CONFLICT (id) DO NOTHING`,
          [d.batchId, d.storeId, d.organizationId, d.fileIds, d.at, rev],
        );
        return;
      }
      case 'StoreFileBatchCancelled':
        await m.query(`UPDATE ${B} SET cancelled_at = $2, revision = $3 WHERE id = $1 AND revision < $3`, [
          e.data.batchId,
          e.data.at,
          rev,
        ]);
        return;
    }
  }
}

/** Events of a store's files and file batches: none of them sets or reads a store's activity time. */
const FILE_LEVEL = new Set<string>([...STORE_FILE_EVENT_TYPES, ...STORE_FILE_BATCH_EVENT_TYPES]);

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Keeps the latest activity time per store until `touch` writes it. */
function later(touched: Map<string, string>, storeId: string, at: string): void {
  const had = touched.get(storeId);
  if (had === undefined || Date.parse(at) > Date.parse(had)) touched.set(storeId, at);
}

/** Moves each store's activity time to the one kept for it, if later, in one statement; empties `touched`. */
async function touch(m: EntityManager, touched: Map<string, string>): Promise<void> {
  if (!touched.size) return;
  const params = [...touched].flat();
  touched.clear();
  const values = Array.from(
    { length: params.length / 2 },
    (_, i) => `($${2 * i + 1}::uuid, $${2 * i + 2}::timestamptz)`,
  );
  await m.query(
    `UPDATE ${S} SET last_active_at = GREATEST(last_active_at, v.at) FROM (VALUES ${values.join(', ')}) AS v(id, at) WHERE ${S}.id = v.id`,
    params,
  );
}

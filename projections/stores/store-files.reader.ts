import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { compileFilterToPostgres, FilterNode, IdCursorFetch } from '@larder/kernel';
import { STORE_FILES_TABLE as F } from './stores.tables';
import { isUuid } from '@larder/kernel';

export interface StoreFileRow {
  storeId: string;
  fileId: string;
  organizationId: string;
  generation: number;
  filename: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  blobKey: string;
  fileVersion: number;
  metadata: unknown;
  externalId: string | null;
  parsingStrategy: 'fast' | 'high_quality';
  /** A chunk size overriding the parsing strategy's (`config.max_chunk_size`, OpenAI's static `chunking_strategy`); null: the strategy's. */
  chunking: { maxTokens: number; overlapTokens: number } | null;
  contextualization: unknown;
  status: 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';
  lastError: { message: string; code: string } | null;
  attempt: number;
  workerId: string | null;
  leaseExpiresAt: Date | null;
  retryAt: Date | null;
  chunksKey: string | null;
  vectorsKey: string | null;
  model: string | null;
  chunkCount: number;
  usageTokens: number;
  createdAt: Date;
  updatedAt: Date;
  /** The store's customer bucket, where ingestion writes the content copy and artifacts (null/absent: platform storage). */
  bucketId?: string | null;
}

type Raw = Record<string, unknown>;
const toRow = (r: Raw): StoreFileRow => ({
  storeId: r.store_id as string,
  fileId: r.file_id as string,
  organizationId: r.organization_id as string,
  generation: r.generation as number,
  filename: r.filename as string,
  mimeType: r.mime_type as string,
  bytes: Number(r.bytes),
  sha256: r.sha256 as string,
  blobKey: r.blob_key as string,
  fileVersion: r.file_version as number,
  metadata: r.metadata ?? null,
  externalId: (r.external_id as string) ?? null,
  parsingStrategy: r.parsing_strategy as StoreFileRow['parsingStrategy'],
  chunking: (r.chunking as StoreFileRow['chunking']) ?? null,
  contextualization: r.contextualization,
  status: r.status as StoreFileRow['status'],
  lastError: (r.last_error as StoreFileRow['lastError']) ?? null,
  attempt: r.attempt as number,
  workerId: (r.worker_id as string) ?? null,
  leaseExpiresAt: (r.lease_expires_at as Date) ?? null,
  retryAt: (r.retry_at as Date) ?? null,
  chunksKey: (r.chunks_key as string) ?? null,
  vectorsKey: (r.vectors_key as string) ?? null,
  model: (r.model as string) ?? null,
  chunkCount: r.chunk_count as number,
  usageTokens: Number(r.usage_tokens),
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
  bucketId: (r.bucket_id as string) ?? null,
});

export interface StoreFileListQuery {
  statuses?: string[] | null;
  /** Only these files (a file batch's). */
  fileIds?: string[] | null;
  filter?: FilterNode | null;
  q?: string | null;
}

/** Queries over store files (read model of the `stores` projection). */
@Injectable()
export class StoreFilesReader {
  constructor(private readonly ds: DataSource) {}

  /** By file id, else by external id, else by file name (newest first). */
  async get(organizationId: string, storeId: string, identifier: string): Promise<StoreFileRow | null> {
    if (isUuid(identifier)) {
      const rows: Raw[] = await this.ds.query(
        `SELECT * FROM ${F} WHERE organization_id = $1 AND store_id = $2 AND file_id = $3::uuid`,
        [organizationId, storeId, identifier],
      );
      if (rows.length) return toRow(rows[0]);
    }
    const rows: Raw[] = await this.ds.query(
      `SELECT * FROM ${F} WHERE organization_id = $1 AND store_id = $2 AND (external_id = $3 OR filename = $3)
        ORDER BY (external_id = $3) DESC NULLS LAST, created_at DESC LIMIT 1`,
      [organizationId, storeId, identifier],
    );
    return rows.length ? toRow(rows[0]) : null;
  }

  /** These store files of the organization (one query; in no particular order); pairs it does not hold are left out. */
  async many(organizationId: string, files: Array<{ storeId: string; fileId: string }>): Promise<StoreFileRow[]> {
    const valid = files.filter((f) => isUuid(f.storeId) && isUuid(f.fileId));
    if (!valid.length) return [];
    const rows: Raw[] = await this.ds.query(
      `SELECT f.* FROM ${F} f JOIN unnest($2::uuid[], $3::uuid[]) AS k(store_id, file_id) ON f.store_id = k.store_id AND f.file_id = k.file_id
        WHERE f.organization_id = $1`,
      [organizationId, valid.map((f) => f.storeId), valid.map((f) => f.fileId)],
    );
    return rows.map(toRow);
  }

  /** The organization owning a store file (for presigned content URLs, which carry no API key). */
  async organizationOf(storeId: string, fileId: string): Promise<string | null> {
    if (!isUuid(storeId) || !isUuid(fileId)) return null;
    const rows: Raw[] = await this.ds.query(`SELECT organization_id FROM ${F} WHERE store_id = $1 AND file_id = $2`, [
      storeId,
      fileId,
    ]);
    return rows.length ? (rows[0].organization_id as string) : null;
  }

  async byExternalId(storeId: string, externalId: string): Promise<StoreFileRow[]> {
    const rows: Raw[] = await this.ds.query(`SELECT * FROM ${F} WHERE store_id = $1 AND external_id = $2`, [
      storeId,
      externalId,
    ]);
    return rows.map(toRow);
  }

  /**
   * External ids that more than one store file of a store carries, none of them added in the last
   * `quietSeconds` (an attach still under way settles its own claim): what a crash between a claim's
   * add and the removal of the files it took the id over from leaves behind.
   */
  async sharedExternalIds(
    quietSeconds: number,
    limit: number,
  ): Promise<Array<{ organizationId: string; storeId: string; externalId: string }>> {
    const rows: Array<{ organization_id: string; store_id: string; external_id: string }> = await this.ds.query(
      `SELECT organization_id, store_id, external_id FROM ${F} WHERE external_id IS NOT NULL
       GROUP BY organization_id, store_id, external_id
       HAVING count(*) > 1 AND max(created_at) < now() - make_interval(secs => $1) LIMIT $2`,
      [quietSeconds, limit],
    );
    return rows.map((r) => ({ organizationId: r.organization_id, storeId: r.store_id, externalId: r.external_id }));
  }

  /** Every store of the organization holding this file. */
  async storesHolding(organizationId: string, fileId: string): Promise<StoreFileRow[]> {
    const rows: Raw[] = await this.ds.query(`SELECT * FROM ${F} WHERE organization_id = $1 AND file_id = $2`, [
      organizationId,
      fileId,
    ]);
    return rows.map(toRow);
  }

  async allOfStore(storeId: string): Promise<StoreFileRow[]> {
    const rows: Raw[] = await this.ds.query(`SELECT * FROM ${F} WHERE store_id = $1 ORDER BY created_at, file_id`, [
      storeId,
    ]);
    return rows.map(toRow);
  }

  private where(storeId: string, query: StoreFileListQuery, params: unknown[]): string {
    params.push(storeId);
    const conds = [`store_id = $${params.length}`];
    if (query.statuses?.length) {
      params.push(query.statuses);
      conds.push(`status = ANY($${params.length}::text[])`);
    }
    if (query.fileIds) {
      params.push(query.fileIds);
      conds.push(`file_id = ANY($${params.length}::uuid[])`);
    }
    if (query.filter)
      conds.push(`(${compileFilterToPostgres(query.filter, { file: 'metadata', chunk: null }, params)})`);
    if (query.q) {
      params.push(query.q.toLowerCase());
      const n = params.length;
      conds.push(`(strpos(lower(filename), $${n}) > 0 OR strpos(lower(coalesce(external_id, '')), $${n}) > 0
                  OR word_similarity($${n}, lower(filename || ' ' || coalesce(external_id, ''))) >= 0.4)`);
    }
    return conds.join(' AND ');
  }

  /** Newest first, keyset on (created_at, file_id). */
  async page(
    storeId: string,
    query: StoreFileListQuery,
    cursor: { c: string; id: string } | null,
    direction: 'forward' | 'backward',
    take: number,
  ): Promise<StoreFileRow[]> {
    const params: unknown[] = [];
    let cond = this.where(storeId, query, params);
    if (cursor) {
      params.push(cursor.c, cursor.id);
      const a = params.length - 1;
      cond +=
        direction === 'forward'
          ? ` AND (created_at, file_id) < ($${a}::timestamptz, $${a + 1}::uuid)`
          : ` AND (created_at, file_id) > ($${a}::timestamptz, $${a + 1}::uuid)`;
    }
    params.push(take);
    const order = direction === 'forward' ? 'DESC' : 'ASC';
    const rows: Raw[] = await this.ds.query(
      `SELECT * FROM ${F} WHERE ${cond} ORDER BY created_at ${order}, file_id ${order} LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRow);
  }

  /** A page of OpenAI's listing (`paginateByIdCursor`): null when `anchor` is no file of the listing. */
  async pageById(storeId: string, query: StoreFileListQuery, q: IdCursorFetch): Promise<StoreFileRow[] | null> {
    const params: unknown[] = [];
    let cond = this.where(storeId, query, params);
    if (q.anchor) {
      const at: Array<{ created_at: Date }> = await this.ds.query(
        `SELECT created_at FROM ${F} WHERE ${cond} AND file_id = $${params.length + 1}::uuid`,
        [...params, q.anchor],
      );
      if (!at.length) return null;
      params.push(at[0].created_at, q.anchor);
      cond += ` AND (created_at, file_id) ${q.cmp} ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
    }
    params.push(q.take);
    const rows: Raw[] = await this.ds.query(
      `SELECT * FROM ${F} WHERE ${cond} ORDER BY created_at ${q.order}, file_id ${q.order} LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRow);
  }

  async count(storeId: string, query: StoreFileListQuery): Promise<number> {
    const params: unknown[] = [];
    const rows: Array<{ n: number }> = await this.ds.query(
      `SELECT count(*)::int AS n FROM ${F} WHERE ${this.where(storeId, query, params)}`,
      params,
    );
    return rows[0].n;
  }

  /** Files waiting for a worker: pending and due, or in progress with an expired lease. Oldest first. */
  async dueForIngestion(now: Date, limit: number, exclude: string[] = []): Promise<StoreFileRow[]> {
    const rows: Raw[] = await this.ds.query(
      `SELECT * FROM ${F}
        WHERE ((status = 'pending' AND (retry_at IS NULL OR retry_at <= $1)) OR (status = 'in_progress' AND lease_expires_at < $1))
          AND NOT (file_id::text || ':' || store_id::text = ANY($3::text[]))
        ORDER BY created_at LIMIT $2`,
      [now, limit, exclude],
    );
    return rows.map(toRow);
  }

  async countInProgress(storeId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.ds.query(
      `SELECT count(*)::int AS n FROM ${F} WHERE store_id = $1 AND status IN ('pending', 'in_progress')`,
      [storeId],
    );
    return rows[0].n;
  }

  /** Files of every store waiting for ingestion (`pending`) and being ingested (`in_progress`). */
  async queueCounts(): Promise<{ pending: number; inProgress: number }> {
    const rows: Array<{ pending: number; in_progress: number }> = await this.ds.query(
      `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'in_progress')::int AS in_progress FROM ${F} WHERE status IN ('pending', 'in_progress')`,
    );
    return { pending: rows[0].pending, inProgress: rows[0].in_progress };
  }
}

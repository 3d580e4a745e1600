import { Injectable } from '@nestjs/common';
import { IdCursorFetch, isUuid } from '@larder/kernel';
import { DataSource } from 'typeorm';
import { STORE_FILES_TABLE as F, STORES_TABLE as S } from './stores.tables';

/** A store as a request names it: its id and name. */
export type StoreRef = { id: string; name: string };

/** A store's row without its file counts and usage (what a write to its files needs: no scan of its files). */
export interface StoreRecord {
  id: string;
  organizationId: string;
  name: string;
  /** Free text (OpenAI's vector store name), not unique; null: none (OpenAI shows `name`). */
  displayName: string | null;
  description: string | null;
  isPublic: boolean;
  license: string | null;
  metadata: unknown;
  config: {
    contextualization: boolean | Record<string, unknown>;
    save_content: boolean;
    lsf?: unknown;
    chunking?: { maxTokens: number; overlapTokens: number } | null;
  };
  expiresAfter: { anchor: 'last_active_at'; days: number } | null;
  status: string;
  copyState: { role: string; status: string; peer_store_id: string; started_at: string; error: string | null } | null;
  createdAt: Date;
  updatedAt: Date;
  lastActiveAt: Date;
  /** The customer bucket that keeps the store's objects (null or absent: platform storage). */
  bucketId?: string | null;
}

/** A store's row with its file counts and usage, counted over its files when it is read (`get`). */
export interface StoreRow extends StoreRecord {
  fileCounts: {
    pending: number;
    in_progress: number;
    cancelled: number;
    completed: number;
    failed: number;
    total: number;
  };
  usageBytes: number;
  usageTokens: number;
}

const SELECT = `SELECT s.*,
  COALESCE(c.pending, 0) AS n_pending, COALESCE(c.in_progress, 0) AS n_in_progress, COALESCE(c.completed, 0) AS n_completed,
  COALESCE(c.failed, 0) AS n_failed, COALESCE(c.cancelled, 0) AS n_cancelled, COALESCE(c.total, 0) AS n_total,
  COALESCE(c.bytes, 0) AS usage_bytes, COALESCE(c.tokens, 0) AS usage_tokens
  FROM ${S} s LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'in_progress')::int AS in_progress,
           count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status = 'failed')::int AS failed,
           count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled, count(*)::int AS total,
           sum(bytes)::bigint AS bytes, sum(usage_tokens)::bigint AS tokens
      FROM ${F} f WHERE f.store_id = s.id) c ON TRUE`;

type Raw = Record<string, unknown>;
const toRecord = (r: Raw): StoreRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  displayName: (r.display_name as string) ?? null,
  description: (r.description as string) ?? null,
  isPublic: r.is_public as boolean,
  license: (r.license as string) ?? null,
  metadata: r.metadata ?? null,
  config: r.config as StoreRecord['config'],
  expiresAfter: (r.expires_after as StoreRecord['expiresAfter']) ?? null,
  status: r.status as string,
  copyState: (r.copy_state as StoreRecord['copyState']) ?? null,
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
  lastActiveAt: r.last_active_at as Date,
  bucketId: (r.bucket_id as string) ?? null,
});
const toRow = (r: Raw): StoreRow => ({
  ...toRecord(r),
  fileCounts: {
    pending: r.n_pending as number,
    in_progress: r.n_in_progress as number,
    cancelled: r.n_cancelled as number,
    completed: r.n_completed as number,
    failed: r.n_failed as number,
    total: r.n_total as number,
  },
  usageBytes: Number(r.usage_bytes),
  usageTokens: Number(r.usage_tokens),
});

/** Queries over the `stores` read model, always scoped to one organization. */
@Injectable()
export class StoresReader {
  constructor(private readonly ds: DataSource) {}

  /** By id, else by name, with its file counts and usage (counted over its files). */
  async get(organizationId: string, identifier: string): Promise<StoreRow | null> {
    const r = await this.one(SELECT, organizationId, identifier);
    return r ? toRow(r) : null;
  }

  /**
   * By id, else by name, without its counts: what a write to a store's files reads (an upload, an
   * attach), in time independent of how many files the store holds.
   */
  async record(organizationId: string, identifier: string): Promise<StoreRecord | null> {
    const r = await this.one(`SELECT s.* FROM ${S} s`, organizationId, identifier);
    return r ? toRecord(r) : null;
  }

  private async one(select: string, organizationId: string, identifier: string): Promise<Raw | null> {
    const rows: Raw[] = isUuid(identifier)
      ? await this.ds.query(`${select} WHERE s.organization_id = $1 AND (s.id = $2::uuid OR s.name = $3)`, [
          organizationId,
          identifier,
          identifier,
        ])
      : await this.ds.query(`${select} WHERE s.organization_id = $1 AND s.name = $2`, [organizationId, identifier]);
    return rows.length ? rows.sort((a) => (a.id === identifier ? -1 : 1))[0] : null;
  }

  /** By id, else by name: identity only (no counts), for hot paths such as search. */
  async resolve(organizationId: string, identifier: string): Promise<StoreRef | null> {
    return (await this.resolveMany(organizationId, [identifier]))[0];
  }

  /** Each identifier (id or name), in order, resolved in one round trip; null where none matches. */
  async resolveMany(organizationId: string, identifiers: string[]): Promise<Array<StoreRef | null>> {
    const rows: Raw[] = await this.ds.query(
      `SELECT DISTINCT ON (ids.ord) ids.ord, st.id, st.name
         FROM unnest($2::text[]) WITH ORDINALITY AS ids(ident, ord)
         LEFT JOIN ${S} st ON st.organization_id = $1
          AND (st.name = ids.ident OR st.id = (CASE WHEN ids.ident ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN ids.ident::uuid END))
        ORDER BY ids.ord, (st.name = ids.ident) ASC`,
      [organizationId, identifiers],
    );
    return rows.map((r) => (r.id ? { id: r.id as string, name: r.name as string } : null));
  }

  async page(
    organizationId: string,
    cursor: { c: string; id: string } | null,
    direction: 'forward' | 'backward',
    take: number,
  ): Promise<StoreRow[]> {
    const params: unknown[] = [organizationId, take];
    let cond = '';
    if (cursor) {
      params.push(cursor.c, cursor.id);
      cond =
        direction === 'forward'
          ? 'AND (s.created_at, s.id) < ($3::timestamptz, $4::uuid)'
          : 'AND (s.created_at, s.id) > ($3::timestamptz, $4::uuid)';
    }
    const order = direction === 'forward' ? 'DESC' : 'ASC';
    const rows: Raw[] = await this.ds.query(
      `${SELECT} WHERE s.organization_id = $1 ${cond} ORDER BY s.created_at ${order}, s.id ${order} LIMIT $2`,
      params,
    );
    return rows.map(toRow);
  }

  /** A page of OpenAI's listing (`paginateByIdCursor`): null when `anchor` is no store of the organization. */
  async pageById(organizationId: string, q: IdCursorFetch): Promise<StoreRow[] | null> {
    const params: unknown[] = [organizationId, q.take];
    let cond = '';
    if (q.anchor) {
      const at: Array<{ created_at: Date }> = await this.ds.query(
        `SELECT created_at FROM ${S} WHERE organization_id = $1 AND id = $2`,
        [organizationId, q.anchor],
      );
      if (!at.length) return null;
      params.push(at[0].created_at, q.anchor);
      cond = `AND (s.created_at, s.id) ${q.cmp} ($3::timestamptz, $4::uuid)`;
    }
    const rows: Raw[] = await this.ds.query(
      `${SELECT} WHERE s.organization_id = $1 ${cond} ORDER BY s.created_at ${q.order}, s.id ${q.order} LIMIT $2`,
      params,
    );
    return rows.map(toRow);
  }

  private static readonly MATCH = `(GREATEST(similarity(lower(s.name || ' ' || coalesce(s.description, '')), lower($2)), word_similarity(lower($2), lower(s.name || ' ' || coalesce(s.description, '')))) >= 0.3
      OR lower(s.name || ' ' || coalesce(s.description, '')) LIKE '%' || lower($2) || '%')`;

  /** Fuzzy match on name and description, best first. */
  async search(organizationId: string, q: string, offset: number, take: number): Promise<StoreRow[]> {
    const rows: Raw[] = await this.ds.query(
      `SELECT * FROM (${SELECT} WHERE s.organization_id = $1 AND ${StoresReader.MATCH}) x
        ORDER BY GREATEST(similarity(lower(name || ' ' || coalesce(description, '')), lower($2)), word_similarity(lower($2), lower(name || ' ' || coalesce(description, '')))) DESC, created_at DESC, id DESC
        OFFSET $3 LIMIT $4`,
      [organizationId, q, offset, take],
    );
    return rows.map(toRow);
  }

  async count(organizationId: string, q?: string): Promise<number> {
    const rows: Array<{ n: number }> = q
      ? await this.ds.query(
          `SELECT count(*)::int AS n FROM ${S} s WHERE s.organization_id = $1 AND ${StoresReader.MATCH}`,
          [organizationId, q],
        )
      : await this.ds.query(`SELECT count(*)::int AS n FROM ${S} s WHERE s.organization_id = $1`, [organizationId]);
    return rows[0].n;
  }

  /** Stores whose inactivity expiry has passed (all organizations; for the expiry sweeper). */
  /** Names of the organization's stores that keep their objects in `bucketId`. */
  async usingBucket(organizationId: string, bucketId: string): Promise<string[]> {
    const rows: { name: string }[] = await this.ds.query(
      `SELECT name FROM ${S} WHERE organization_id = $1 AND bucket_id = $2 ORDER BY created_at`,
      [organizationId, bucketId],
    );
    return rows.map((r) => r.name);
  }

  async expiredBy(now: Date, limit = 100): Promise<Array<{ id: string; organizationId: string }>> {
    const rows: Raw[] = await this.ds.query(
      `SELECT id, organization_id FROM ${S} WHERE status <> 'expired' AND expires_after IS NOT NULL
          AND last_active_at + make_interval(days => (expires_after->>'days')::int) <= $1 LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => ({ id: r.id as string, organizationId: r.organization_id as string }));
  }
}

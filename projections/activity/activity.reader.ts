import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACTIVITY_TABLE as T } from './activity.tables';

export interface ActivityRow {
  id: string;
  kind: string;
  storeIds: string[];
  createdAt: Date;
  event: Record<string, unknown>;
}

export interface ActivityQuery {
  organizationId: string;
  kinds: string[];
  /** Only events of this store; null = every event of the organization (with or without a store). */
  storeId: string | null;
  before: Date | null;
  after: Date | null;
}

const toRow = (r: Record<string, unknown>): ActivityRow => ({
  id: r.id as string,
  kind: r.kind as string,
  storeIds: r.store_ids as string[],
  createdAt: r.created_at as Date,
  event: r.event as Record<string, unknown>,
});

@Injectable()
export class ActivityReader {
  constructor(private readonly ds: DataSource) {}

  private where(q: ActivityQuery, params: unknown[]): string {
    params.push(q.organizationId, q.kinds);
    const conds = [`organization_id = $1`, `kind = ANY($2::text[])`];
    if (q.storeId) conds.push(`store_ids @> ARRAY[$${params.push(q.storeId)}]::uuid[]`);
    if (q.before) conds.push(`created_at < $${params.push(q.before)}`);
    if (q.after) conds.push(`created_at > $${params.push(q.after)}`);
    return conds.join(' AND ');
  }

  /** Newest first; keyset pagination on (created_at, id). */
  async page(
    q: ActivityQuery,
    cursor: { t: string; id: string } | null,
    direction: 'forward' | 'backward',
    take: number,
  ): Promise<ActivityRow[]> {
    const params: unknown[] = [];
    let where = this.where(q, params);
    if (cursor) {
      const a = params.push(cursor.t);
      const b = params.push(cursor.id);
      where +=
        direction === 'forward'
          ? ` AND (created_at, id) < ($${a}::timestamptz, $${b}::uuid)`
          : ` AND (created_at, id) > ($${a}::timestamptz, $${b}::uuid)`;
    }
    const order = direction === 'forward' ? 'DESC' : 'ASC';
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT * FROM ${T} WHERE ${where} ORDER BY created_at ${order}, id ${order} LIMIT $${params.push(take)}`,
      params,
    );
    return rows.map(toRow);
  }

  async count(q: ActivityQuery): Promise<number> {
    const params: unknown[] = [];
    const rows: Array<{ n: number }> = await this.ds.query(
      `SELECT count(*)::int AS n FROM ${T} WHERE ${this.where(q, params)}`,
      params,
    );
    return rows[0].n;
  }

  /** Events per (bucket, kind) in [start, end), buckets of `seconds` from `start`; only non-empty ones. */
  async histogram(
    q: ActivityQuery & { start: Date; end: Date; seconds: number },
  ): Promise<Array<{ bucket: number; kind: string; n: number }>> {
    const params: unknown[] = [];
    const where = this.where({ ...q, before: null, after: null }, params);
    const s = params.push(q.start);
    const e = params.push(q.end);
    const w = params.push(q.seconds);
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT floor(extract(epoch FROM (created_at - $${s}::timestamptz)) / $${w})::int AS bucket, kind, count(*)::int AS n
         FROM ${T} WHERE ${where} AND created_at >= $${s} AND created_at < $${e} GROUP BY 1, 2`,
      params,
    );
    return rows.map((r) => ({ bucket: r.bucket as number, kind: r.kind as string, n: r.n as number }));
  }
}

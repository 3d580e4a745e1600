import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BILLING_STORAGE_TABLE as S, BILLING_USAGE_TABLE as U } from './billing.tables';

export interface UsageRow {
  day: string;
  storeId: string | null;
  metric: string;
  /** A non-negative integer as a string; for `storage`, byte-microseconds. */
  quantity: string;
}

/** Metered usage per UTC day, store and metric, in [start, end). */
@Injectable()
export class BillingReader {
  constructor(private readonly ds: DataSource) {}

  async daily(organizationId: string, start: Date, end: Date, now: Date): Promise<UsageRow[]> {
    const usage: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT to_char(date_trunc('day', at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, store_id, metric, sum(quantity)::text AS quantity
         FROM ${U} WHERE organization_id = $1 AND at >= $2 AND at < $3 GROUP BY 1, 2, 3`,
      [organizationId, start, end],
    );
    // storage: bytes × microseconds held, per day, until removal (a file still held: until now)
    const storage: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT to_char(d.day AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, s.store_id, 'storage' AS metric,
              sum(s.bytes::numeric * round(extract(epoch FROM (LEAST(COALESCE(s.to_at, $4), d.day + interval '1 day', $3) - GREATEST(s.from_at, d.day, $2))) * 1000000))::text AS quantity
         FROM generate_series(date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', $3::timestamptz - interval '1 microsecond', interval '1 day') AS d(day)
         JOIN ${S} s ON s.organization_id = $1
          AND s.from_at < LEAST(d.day + interval '1 day', $3) AND COALESCE(s.to_at, $4) > GREATEST(d.day, $2)
        GROUP BY 1, 2`,
      [organizationId, start, end, now],
    );
    return [...usage, ...storage].map((r) => ({
      day: r.day as string,
      storeId: (r.store_id as string) ?? null,
      metric: r.metric as string,
      quantity: r.quantity as string,
    }));
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid } from '@larder/kernel';
import { STORE_FILE_BATCHES_TABLE as B, STORE_FILES_TABLE as F } from './stores.tables';

/** A file batch with the state of its files, counted from the store-file rows (OpenAI's four statuses). */
export interface StoreFileBatchRow {
  id: string;
  storeId: string;
  organizationId: string;
  fileIds: string[];
  cancelledAt: Date | null;
  createdAt: Date;
  /** Over the batch's files still in the store: waiting and running count as `in_progress`. */
  fileCounts: { in_progress: number; completed: number; failed: number; cancelled: number; total: number };
}

type Raw = Record<string, unknown>;

/** Queries over the file batches of the `stores` read model, always scoped to one organization and store. */
@Injectable()
export class StoreFileBatchesReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string, storeId: string, batchId: string): Promise<StoreFileBatchRow | null> {
    if (!isUuid(batchId)) return null;
    const rows: Raw[] = await this.ds.query(
      `SELECT b.*, COALESCE(c.in_progress, 0) AS n_in_progress, COALESCE(c.completed, 0) AS n_completed, COALESCE(c.failed, 0) AS n_failed,
              COALESCE(c.cancelled, 0) AS n_cancelled, COALESCE(c.total, 0) AS n_total
         FROM ${B} b LEFT JOIN LATERAL (
           SELECT count(*) FILTER (WHERE status IN ('pending', 'in_progress'))::int AS in_progress, count(*) FILTER (WHERE status = 'completed')::int AS completed,
                  count(*) FILTER (WHERE status = 'failed')::int AS failed, count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled, count(*)::int AS total
             FROM ${F} f WHERE f.store_id = b.store_id AND f.file_id = ANY(b.file_ids)) c ON TRUE
        WHERE b.organization_id = $1 AND b.store_id = $2 AND b.id = $3`,
      [organizationId, storeId, batchId],
    );
    if (!rows.length) return null;
    const r = rows[0];
    return {
      id: r.id as string,
      storeId: r.store_id as string,
      organizationId: r.organization_id as string,
      fileIds: Array.isArray(r.file_ids)
        ? (r.file_ids as string[])
        : String(r.file_ids).replace(/[{}]/g, '').split(',').filter(Boolean),
      cancelledAt: (r.cancelled_at as Date) ?? null,
      createdAt: r.created_at as Date,
      fileCounts: {
        in_progress: r.n_in_progress as number,
        completed: r.n_completed as number,
        failed: r.n_failed as number,
        cancelled: r.n_cancelled as number,
        total: r.n_total as number,
      },
    };
  }
}

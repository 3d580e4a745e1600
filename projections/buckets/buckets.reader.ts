import { Injectable } from '@nestjs/common';
import { isUuid } from '@larder/kernel';
import { DataSource } from 'typeorm';
import { BUCKETS_TABLE as T } from './buckets.tables';

export interface BucketRow {
  id: string;
  organizationId: string;
  name: string;
  provider: 'aws_s3';
  bucket: string;
  region: string | null;
  endpointUrl: string | null;
  prefix: string;
  sseKmsKeyId: string | null;
  authType: 'assume_role' | 'access_key';
  roleArn: string | null;
  externalId: string | null;
  /** The vault reference of the sealed keys (access_key); never the keys. */
  secretRef: string | null;
  accessKeyIdLast4: string | null;
  status: 'pending' | 'active' | 'error';
  lastError: string | null;
  lastValidatedAt: Date | null;
  credentialsVersion: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

type Raw = Record<string, unknown>;
const toRow = (r: Raw): BucketRow => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  name: r.name as string,
  provider: r.provider as 'aws_s3',
  bucket: r.bucket as string,
  region: (r.region as string) ?? null,
  endpointUrl: (r.endpoint_url as string) ?? null,
  prefix: r.prefix as string,
  sseKmsKeyId: (r.sse_kms_key_id as string) ?? null,
  authType: r.auth_type as BucketRow['authType'],
  roleArn: (r.role_arn as string) ?? null,
  externalId: (r.external_id as string) ?? null,
  secretRef: (r.secret_ref as string) ?? null,
  accessKeyIdLast4: (r.access_key_id_last4 as string) ?? null,
  status: r.status as BucketRow['status'],
  lastError: (r.last_error as string) ?? null,
  lastValidatedAt: (r.last_validated_at as Date) ?? null,
  credentialsVersion: Number(r.credentials_version),
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
  deletedAt: (r.deleted_at as Date) ?? null,
});

/** Queries over the `buckets` read model; every tenant-facing query is scoped to one organization and skips deleted buckets. */
@Injectable()
export class BucketsReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string, id: string): Promise<BucketRow | null> {
    if (!isUuid(id)) return null;
    const rows: Raw[] = await this.ds.query(
      `SELECT * FROM ${T} WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [organizationId, id],
    );
    return rows.length ? toRow(rows[0]) : null;
  }

  /** For Larder's own use of a bucket named in a blob key (deleted ones included: their stores' objects are still being removed). */
  async byId(id: string): Promise<BucketRow | null> {
    if (!isUuid(id)) return null;
    const rows: Raw[] = await this.ds.query(`SELECT * FROM ${T} WHERE id = $1`, [id]);
    return rows.length ? toRow(rows[0]) : null;
  }

  /** Keyset page, newest first (see paginateByCursor). */
  async page(
    organizationId: string,
    cursor: { c: string; id: string } | null,
    direction: 'forward' | 'backward',
    take: number,
  ): Promise<BucketRow[]> {
    const params: unknown[] = [organizationId, take];
    let where = `organization_id = $1 AND deleted_at IS NULL`;
    if (cursor) {
      params.push(cursor.c, cursor.id);
      where +=
        direction === 'forward'
          ? ` AND (created_at, id) < ($3::timestamptz, $4::uuid)`
          : ` AND (created_at, id) > ($3::timestamptz, $4::uuid)`;
    }
    const order = direction === 'forward' ? 'created_at DESC, id DESC' : 'created_at ASC, id ASC';
    const rows: Raw[] = await this.ds.query(`SELECT * FROM ${T} WHERE ${where} ORDER BY ${order} LIMIT $2`, params);
    return rows.map(toRow);
  }

  async count(organizationId: string): Promise<number> {
    const rows: { n: number }[] = await this.ds.query(
      `SELECT count(*)::int AS n FROM ${T} WHERE organization_id = $1 AND deleted_at IS NULL`,
      [organizationId],
    );
    return rows[0].n;
  }
}

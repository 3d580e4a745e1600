import { Injectable } from '@nestjs/common';
import { isUuid } from '@larder/kernel';
import { DataSource } from 'typeorm';
import { FileEntity } from './file.entity';
import { FILES_TABLE as T } from './files.tables';

interface Row {
  id: string;
  organization_id: string;
  filename: string;
  mime_type: string;
  bytes: string;
  sha256: string;
  version: number;
  blob_key: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  revision: string;
  purpose: string | null;
}
const toEntity = (r: Row): FileEntity =>
  Object.assign(new FileEntity(), {
    id: r.id,
    organizationId: r.organization_id,
    filename: r.filename,
    mimeType: r.mime_type,
    bytes: r.bytes,
    sha256: r.sha256,
    version: r.version,
    blobKey: r.blob_key,
    description: r.description,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    revision: r.revision,
    purpose: r.purpose ?? null,
  });

/** How well `$2` (the query) matches a file: the name as a whole or in part, or a part of the description. */
const SCORE = `GREATEST(similarity(lower(filename), lower($2)), word_similarity(lower($2), lower(filename)), COALESCE(word_similarity(lower($2), lower(description)), 0))`;
/** Which files `q` lists: a close enough score, or the query inside the name or the description. */
const MATCHES = `(score >= 0.3 OR lower(filename) LIKE '%' || lower($2) || '%' OR lower(description) LIKE '%' || lower($2) || '%')`;

/** A file as the reader answers it. */
export type FileRow = FileEntity;

/** Queries over the `files` read model, always scoped to one organization. */
@Injectable()
export class FilesReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string, id: string): Promise<FileEntity | null> {
    if (!isUuid(id)) return null;
    return this.ds.getRepository(FileEntity).findOneBy({ organizationId, id });
  }

  /** Newest first, keyset on (created_at, id). */
  async page(
    organizationId: string,
    cursor: { c: string; id: string } | null,
    direction: 'forward' | 'backward',
    take: number,
  ): Promise<FileEntity[]> {
    const params: unknown[] = [organizationId, take];
    let cond = '';
    if (cursor) {
      params.push(cursor.c, cursor.id);
      cond =
        direction === 'forward'
          ? 'AND (created_at, id) < ($3::timestamptz, $4::uuid)'
          : 'AND (created_at, id) > ($3::timestamptz, $4::uuid)';
    }
    const order = direction === 'forward' ? 'DESC' : 'ASC';
    const rows: Row[] = await this.ds.query(
      `SELECT * FROM ${T} WHERE organization_id = $1 ${cond} ORDER BY created_at ${order}, id ${order} LIMIT $2`,
      params,
    );
    return rows.map(toEntity);
  }

  /**
   * Fuzzy search over the name and the description, best matches first: trigram similarity of the
   * whole name and of the best matching word span of either, so typos ("reprot"), partial names
   * ("quarterly") and words of a description all match.
   */
  async search(organizationId: string, q: string, offset: number, take: number): Promise<FileEntity[]> {
    const rows: Row[] = await this.ds.query(
      `SELECT * FROM (SELECT f.*, ${SCORE} AS score FROM ${T} f WHERE organization_id = $1) s
        WHERE ${MATCHES}
        ORDER BY score DESC, created_at DESC, id DESC
        OFFSET $3 LIMIT $4`,
      [organizationId, q, offset, take],
    );
    return rows.map(toEntity);
  }

  async count(organizationId: string, q?: string): Promise<number> {
    const rows: Array<{ n: number }> = q
      ? await this.ds.query(
          `SELECT count(*)::int AS n FROM (SELECT f.*, ${SCORE} AS score FROM ${T} f WHERE organization_id = $1) s WHERE ${MATCHES}`,
          [organizationId, q],
        )
      : await this.ds.query(`SELECT count(*)::int AS n FROM ${T} WHERE organization_id = $1`, [organizationId]);
    return rows[0].n;
  }
}

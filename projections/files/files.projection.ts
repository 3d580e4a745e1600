import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import { FILE_EVENT_TYPES, FileEvent } from '@larder/files/events';
import { Projection } from '../runner/projection';
import { FILES_TABLE as T } from './files.tables';

/**
 * `files`: one row per live file, with trigram indexes on the name and the description for fuzzy `q`.
 * Version 2 added `purpose`, version 3 `description`.
 */
export class FilesProjection implements Projection {
  readonly name = 'files';
  readonly version = 3;
  readonly tables = [T];
  readonly handles = FILE_EVENT_TYPES;

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, filename text NOT NULL, mime_type text NOT NULL,
      bytes bigint NOT NULL, sha256 text NOT NULL, version int NOT NULL, blob_key text NOT NULL,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, revision bigint NOT NULL, purpose text, description text)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_org_created ON ${T} (organization_id, created_at DESC, id DESC)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_filename_trgm ON ${T} USING gin (lower(filename) gin_trgm_ops)`);
    await m.query(
      `CREATE INDEX IF NOT EXISTS ${T}_description_trgm ON ${T} USING gin (lower(description) gin_trgm_ops)`,
    );
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<FileEvent>(event);
    const rev = event.revision;
    switch (e.type) {
      case 'FileUploaded': {
        const d = e.data;
        await m.query(
          `INSERT INTO ${T} (id, organization_id, filename, mime_type, bytes, sha256, version, blob_key, created_at, updated_at, revision, purpose, description)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
          [
            d.fileId,
            d.organizationId,
            d.filename,
            d.mimeType,
            d.bytes,
            d.sha256,
            d.version,
            d.blobKey,
            d.at,
            rev,
            d.purpose ?? null,
            d.description ?? null,
          ],
        );
        return;
      }
      case 'FileReplaced': {
        const d = e.data;
        await m.query(
          // a replace without a description keeps the one the file has
          `UPDATE ${T} SET filename = $2, mime_type = $3, bytes = $4, sha256 = $5, version = $6, blob_key = $7, updated_at = $8, revision = $9,
                  description = CASE WHEN $10 THEN $11 ELSE description END
            WHERE id = $1 AND revision < $9`,
          [
            d.fileId,
            d.filename,
            d.mimeType,
            d.bytes,
            d.sha256,
            d.version,
            d.blobKey,
            d.at,
            rev,
            d.description !== undefined,
            d.description ?? null,
          ],
        );
        return;
      }
      case 'FileDeleted':
        await m.query(`DELETE FROM ${T} WHERE id = $1`, [e.data.fileId]);
        return;
    }
  }
}

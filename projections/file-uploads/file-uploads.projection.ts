import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import { MULTIPART_UPLOAD_EVENT_TYPES, MultipartUploadEvent } from '@larder/files/events';
import { Projection } from '../runner/projection';
import { FILE_UPLOADS_TABLE as T } from './file-uploads.tables';

/** `file-uploads`: multipart uploads with the parts received so far. */
export class FileUploadsProjection implements Projection {
  readonly name = 'file-uploads';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = MULTIPART_UPLOAD_EVENT_TYPES;

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, filename text NOT NULL, file_size bigint NOT NULL,
      mime_type text NOT NULL, part_count int NOT NULL, blob_key text NOT NULL, storage_upload_id text NOT NULL,
      status text NOT NULL, parts jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL, revision bigint NOT NULL)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_org_status ON ${T} (organization_id, status, created_at DESC)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_expiry ON ${T} (status, expires_at)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<MultipartUploadEvent>(event);
    const rev = event.revision;
    switch (e.type) {
      case 'MultipartUploadCreated': {
        const d = e.data;
        await m.query(
          `INSERT INTO ${T} (id, organization_id, filename, file_size, mime_type, part_count, blob_key, storage_upload_id, status, created_at, expires_at, revision)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'in_progress', $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
          [
            d.uploadId,
            d.organizationId,
            d.filename,
            d.fileSize,
            d.mimeType,
            d.partCount,
            d.blobKey,
            d.storageUploadId,
            d.createdAt,
            d.expiresAt,
            rev,
          ],
        );
        return;
      }
      case 'MultipartUploadPartReceived':
        await m.query(
          `UPDATE ${T} SET parts = parts || jsonb_build_object($2::text, jsonb_build_object('etag', $3::text, 'bytes', $4::bigint)), revision = $5
            WHERE id = $1 AND revision < $5`,
          [e.data.uploadId, String(e.data.partNumber), e.data.etag, e.data.bytes, rev],
        );
        return;
      case 'MultipartUploadCompleted':
        await m.query(`UPDATE ${T} SET status = 'completed', revision = $2 WHERE id = $1 AND revision < $2`, [
          e.data.uploadId,
          rev,
        ]);
        return;
      case 'MultipartUploadAborted':
        await m.query(`UPDATE ${T} SET status = 'aborted', revision = $2 WHERE id = $1 AND revision < $2`, [
          e.data.uploadId,
          rev,
        ]);
        return;
    }
  }
}

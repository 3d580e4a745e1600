import { Column, Entity, PrimaryColumn } from 'typeorm';
import { FILE_UPLOADS_TABLE } from './file-uploads.tables';

@Entity({ name: FILE_UPLOADS_TABLE })
export class FileUploadEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'organization_id' }) organizationId!: string;
  @Column('text') filename!: string;
  @Column('bigint', { name: 'file_size' }) fileSize!: string;
  @Column('text', { name: 'mime_type' }) mimeType!: string;
  @Column('int', { name: 'part_count' }) partCount!: number;
  @Column('text', { name: 'blob_key' }) blobKey!: string;
  @Column('text', { name: 'storage_upload_id' }) storageUploadId!: string;
  @Column('text') status!: 'in_progress' | 'completed' | 'aborted';
  @Column('jsonb') parts!: Record<string, { etag: string; bytes: number }>;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
  @Column('bigint') revision!: string;
}

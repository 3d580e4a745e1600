import { Column, Entity, PrimaryColumn } from 'typeorm';
import { FILES_TABLE } from './files.tables';

@Entity({ name: FILES_TABLE })
export class FileEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'organization_id' }) organizationId!: string;
  @Column('text') filename!: string;
  @Column('text', { name: 'mime_type' }) mimeType!: string;
  @Column('bigint') bytes!: string;
  @Column('text') sha256!: string;
  @Column('int') version!: number;
  @Column('text', { name: 'blob_key' }) blobKey!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
  @Column('text', { nullable: true }) purpose!: string | null;
  @Column('bigint') revision!: string;
}

import { Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { FileUploadEntity } from './file-upload.entity';

/** A multipart upload as the reader answers it. */
export type FileUploadRow = FileUploadEntity;

@Injectable()
export class FileUploadsReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string | null, id: string): Promise<FileUploadEntity | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    return this.ds.getRepository(FileUploadEntity).findOneBy(organizationId ? { organizationId, id } : { id });
  }

  inProgress(organizationId: string): Promise<FileUploadEntity[]> {
    return this.ds.getRepository(FileUploadEntity).find({ where: { organizationId, status: 'in_progress' }, order: { createdAt: 'DESC' } });
  }

  expired(now: Date, limit = 100): Promise<FileUploadEntity[]> {
    return this.ds.getRepository(FileUploadEntity).find({ where: { status: 'in_progress', expiresAt: LessThan(now) }, take: limit });
  }
}

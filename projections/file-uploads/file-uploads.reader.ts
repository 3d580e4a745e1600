import { Injectable } from '@nestjs/common';
import { isUuid } from '@larder/kernel';
import { DataSource, LessThan } from 'typeorm';
import { FileUploadEntity } from './file-upload.entity';

/** A multipart upload as the reader answers it. */
export type FileUploadRow = FileUploadEntity;

@Injectable()
export class FileUploadsReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string | null, id: string): Promise<FileUploadEntity | null> {
    if (!isUuid(id)) return null;
    return this.ds.getRepository(FileUploadEntity).findOneBy(organizationId ? { organizationId, id } : { id });
  }

  inProgress(organizationId: string): Promise<FileUploadEntity[]> {
    return this.ds
      .getRepository(FileUploadEntity)
      .find({ where: { organizationId, status: 'in_progress' }, order: { createdAt: 'DESC' } });
  }

  expired(now: Date, limit = 100): Promise<FileUploadEntity[]> {
    return this.ds
      .getRepository(FileUploadEntity)
      .find({ where: { status: 'in_progress', expiresAt: LessThan(now) }, take: limit });
  }
}

import { Controller, Get, Param } from '@nestjs/common';
import { CurrentPrincipal, NotFoundError, Principal, RequireScope } from '@larder/kernel';
import { FilesReader } from '@larder/projections/files/files.reader';
import { FileObjectResponse, toFileObject } from '../file.response';

@Controller('v1/files')
export class GetFileHttpController {
  constructor(private readonly reader: FilesReader) {}

  @Get(':file_id')
  @RequireScope({ method: 'read', resourceType: 'file', resourceIdParam: 'file_id' })
  async get(@CurrentPrincipal() p: Principal, @Param('file_id') id: string): Promise<FileObjectResponse> {
    const row = await this.reader.get(p.organizationId, id);
    if (!row) throw new NotFoundError(`File ${id} not found`);
    return toFileObject(row);
  }
}

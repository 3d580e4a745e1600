import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Response } from 'express';
import { Public } from '@larder/kernel';
import { DownloadStoreFileContentQuery } from './download-store-file-content.query';
import { StoreFileContent } from './download-store-file-content.handler';

@Controller('v1/stores/:store_identifier/files')
export class DownloadStoreFileContentHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** The target of a `content_url`: no API key, the signature is the authority. */
  @Get(':file_identifier/content')
  @Public()
  async content(
    @Param('store_identifier') sid: string,
    @Param('file_identifier') fid: string,
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const f: StoreFileContent = await this.queries.execute(
      new DownloadStoreFileContentQuery(sid, fid, expires, signature),
    );
    res.status(200);
    res.setHeader('content-type', f.mimeType);
    res.setHeader('content-length', String(f.bytes));
    res.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.filename)}`);
    f.body.pipe(res);
  }
}

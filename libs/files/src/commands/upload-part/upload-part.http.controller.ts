import { Controller, HttpCode, Param, Put, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { Public } from '@larder/kernel';
import { UploadPartCommand } from './upload-part.command';
import { PartReceivedResponse } from './upload-part.handler';
import { UploadPartRequestDto } from './upload-part.request.dto';

/**
 * The presigned part URL Larder serves itself when blobs are on local disk: no API key, an HMAC
 * signature and expiry instead. Answers with the part's `ETag` header, which the client must echo in
 * `complete`.
 */
@Controller('v1/files/uploads')
export class UploadPartHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Put(':upload_id/parts/:part_number')
  @HttpCode(200)
  @Public()
  async put(
    @Param('upload_id') id: string,
    @Param('part_number') part: string,
    @Query() query: UploadPartRequestDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    try {
      const received: PartReceivedResponse = await this.commands.execute(
        new UploadPartCommand(id, /^\d{1,5}$/.test(part) ? Number(part) : -1, query.expires, query.signature, req),
      );
      res.setHeader('ETag', received.etag);
      res.status(200).json(received);
    } catch (err) {
      req.resume();
      throw err;
    }
  }
}

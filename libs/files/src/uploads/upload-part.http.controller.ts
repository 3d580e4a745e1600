import { Controller, HttpCode, Param, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ForbiddenError, Public } from '@larder/kernel';
import { ForbiddenPartUrl, UploadWriter } from './upload.writer';

/**
 * The presigned part URL Larder serves itself when blobs are on local disk: no API key, an HMAC
 * signature and expiry instead. Answers with the part's `ETag` header, which the client must echo in
 * `complete`.
 */
@Controller('v1/files/uploads')
export class UploadPartHttpController {
  constructor(private readonly uploads: UploadWriter) {}

  @Put(':upload_id/parts/:part_number')
  @HttpCode(200)
  @Public()
  async put(
    @Param('upload_id') id: string,
    @Param('part_number') part: string,
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    try {
      const etag = await this.uploads.receivePart(id, /^\d{1,5}$/.test(part) ? Number(part) : -1, expires, signature, req);
      res.setHeader('ETag', etag);
      res.status(200).json({ part_number: Number(part), etag });
    } catch (err) {
      req.resume();
      if (err instanceof ForbiddenPartUrl) throw new ForbiddenError(err.message);
      throw err;
    }
  }
}

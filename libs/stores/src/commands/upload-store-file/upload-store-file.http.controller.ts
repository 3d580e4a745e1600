import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { baseUrlOf, CurrentPrincipal, LIMITS, Principal, readMultipart, StoreRoute } from '@larder/kernel';
import { StoreFileResponse } from '../../store.response';
import { UploadStoreFileCommand } from './upload-store-file.command';

/** The text parts an upload takes beside `file`: JSON strings up to a JSON body's size, and the external id. */
const UPLOAD_FIELDS = {
  params: LIMITS.jsonBodyBytes,
  metadata: LIMITS.jsonBodyBytes,
  config: LIMITS.jsonBodyBytes,
  external_id: 4096,
};

@Controller('v1/stores/:store_identifier/files')
export class UploadStoreFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  /**
   * Multipart: a `file` part plus `params` (a JSON string of the JSON create body without `file_id`);
   * separate `metadata` and `config` parts (JSON strings) are accepted too and win over `params`, and so is `external_id`; any other part is a 422.
   */
  @StoreRoute('write', Post('upload'), HttpCode(201))
  upload(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Req() req: Request,
  ): Promise<StoreFileResponse> {
    return this.commands.execute(
      new UploadStoreFileCommand(
        p.organizationId,
        p.apiKeyId,
        { scope: p.scope, baseUrl: baseUrlOf(req) },
        sid,
        (consume) => readMultipart(req, UPLOAD_FIELDS, consume),
      ),
    );
  }
}

import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { CurrentPrincipal, Principal, readMultipart, RequireScope, UuidParam } from '@larder/kernel';
import { FileWriter } from '../../file.writer';
import { FileObjectResponse } from '../../file.response';
import { describedBy, MAX_FILE_DESCRIPTION_CHARS } from '../../file-description';
import { ReplaceFileCommand } from './replace-file.command';

/** The one text part a replace takes beside `file` (a UTF-8 character is at most 4 bytes). */
const REPLACE_FIELDS = { description: 4 * MAX_FILE_DESCRIPTION_CHARS };

@Controller('v1/files')
export class ReplaceFileHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly files: FileWriter,
  ) {}

  /**
   * Replaces the content; `version` goes up by one. A `description` part replaces the description
   * (empty: clears it); without one it is kept. Any other part is a 422. An unknown file is refused before its body is read.
   */
  @Post(':file_id')
  @HttpCode(200)
  @RequireScope({ method: 'write', resourceType: 'file', resourceIdParam: 'file_id' })
  async replace(
    @CurrentPrincipal() p: Principal,
    @UuidParam('file_id') id: string,
    @Req() req: Request,
  ): Promise<FileObjectResponse> {
    await this.files.mustExist(p.organizationId, id).catch((err: unknown) => {
      req.resume();
      throw err;
    });
    const { result } = await readMultipart(req, REPLACE_FIELDS, (f, fields): Promise<FileObjectResponse> =>
      this.commands.execute(
        new ReplaceFileCommand(p.organizationId, p.apiKeyId, id, f.filename, f.mimeType, f.stream, describedBy(fields)),
      ),
    );
    return result;
  }
}

import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { CurrentPrincipal, Principal, readMultipart, RequireScope, ValidationFailedError } from '@larder/kernel';
import { FileObjectResponse } from '../../file.response';
import { describedBy, MAX_FILE_DESCRIPTION_CHARS } from '../../file-description';
import { UploadFileCommand } from './upload-file.command';
import { UploadedFile } from './upload-file.handler';

/** OpenAI's file purposes, accepted as the `purpose` form field and echoed on the file. */
export const FILE_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;

function purposeOf(fields: Record<string, string>): string | undefined {
  const p = fields.purpose;
  if (p === undefined) return undefined;
  if (!(FILE_PURPOSES as readonly string[]).includes(p)) {
    throw new ValidationFailedError([
      {
        loc: ['body', 'purpose'],
        msg: `purpose must be one of ${FILE_PURPOSES.join(', ')}`,
        type: 'enum',
        input: p.slice(0, 100),
      },
    ]);
  }
  return p;
}

/** The text parts an upload takes beside `file` (a UTF-8 character is at most 4 bytes). */
const UPLOAD_FIELDS = { purpose: 64, description: 4 * MAX_FILE_DESCRIPTION_CHARS };

@Controller('v1/files')
export class UploadFileHttpController {
  constructor(private readonly commands: CommandBus) {}

  /**
   * multipart/form-data with a `file` part, streamed into blob storage, and optionally OpenAI's
   * `purpose` field and a `description` (which `q` of the file list matches); any other part is a 422.
   */
  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'file' })
  async upload(@CurrentPrincipal() p: Principal, @Req() req: Request): Promise<FileObjectResponse> {
    const { result } = await readMultipart(req, UPLOAD_FIELDS, async (f, fields) => {
      const asked = fields.then(purposeOf);
      asked.catch(() => undefined); // awaited by the handler once the content is stored; never an unhandled rejection
      const uploaded: UploadedFile = await this.commands.execute(
        new UploadFileCommand(
          p.organizationId,
          p.apiKeyId,
          f.filename,
          f.mimeType,
          f.stream,
          asked,
          describedBy(fields),
        ),
      );
      const { id, filename, bytes, mime_type, version, created_at, updated_at, object, purpose, status } = uploaded;
      return { id, filename, bytes, mime_type, version, created_at, updated_at, object, purpose, status };
    });
    return result;
  }
}

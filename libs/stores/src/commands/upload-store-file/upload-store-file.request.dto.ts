import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { plainInputProblem, reservedKey, ValidationFailedError, validationDetail } from '@larder/kernel';
import { AddStoreFileRequestDto, StoreFileConfigDto } from '../add-store-file/add-store-file.request.dto';

/** A part holding JSON, parsed and held to the JSON body's rules at `["body", name]`. */
const parseJson = (name: string, text: string): unknown => {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new ValidationFailedError([
      { loc: ['body', name], msg: `${name} must be a JSON string`, type: 'json_invalid', input: text },
    ]);
  }
  const odd = plainInputProblem(value, ['body', name]);
  if (odd) throw odd;
  return value;
};

/**
 * The text parts of `POST …/files/upload` beside its `file` part: `params` (a JSON string of the JSON
 * create body without `file_id`); separate `metadata` and `config` parts (JSON strings) and
 * `external_id` win over `params`. Validated as `AddStoreFileRequestDto` with the uploaded file's id.
 */
export async function uploadParams(fields: Record<string, string>, fileId: string): Promise<AddStoreFileRequestDto> {
  let params: Record<string, unknown> = {};
  if (fields.params) {
    const v = parseJson('params', fields.params);
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new ValidationFailedError([
        { loc: ['body', 'params'], msg: 'params must be a JSON object', type: 'dict_type' },
      ]);
    params = v as Record<string, unknown>;
  }
  if (fields.metadata !== undefined) params.metadata = parseJson('metadata', fields.metadata);
  if (fields.config !== undefined) params.config = parseJson('config', fields.config);
  if (fields.external_id !== undefined) params.external_id = fields.external_id;
  // multipart fields skip the JSON body middleware: readMultipart checked their text, parseJson the JSON they carry
  const reserved = reservedKey(params, ['body', 'params']);
  if (reserved) throw reserved;
  const dto = plainToInstance(AddStoreFileRequestDto, { ...params, file_id: fileId });
  const errors = await validate(dto, { whitelist: true });
  if (errors.length) {
    // a field sent as its own part is located there, the rest inside `params`
    throw new ValidationFailedError(
      errors.flatMap((e) => validationDetail([e], fields[e.property] !== undefined ? ['body'] : ['body', 'params'])),
    );
  }
  if (dto.config) dto.config = plainToInstance(StoreFileConfigDto, dto.config);
  return dto;
}

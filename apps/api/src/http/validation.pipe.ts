import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { reservedKey, ValidationFailedError, validationDetail } from '@larder/kernel';

class RawErrors extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('validation failed');
  }
}

const LOCATION: Record<string, string> = { body: 'body', query: 'query', param: 'path', custom: 'body' };

/**
 * class-validator behind the contract's 422 `HTTPValidationError`: one `detail` entry per failed
 * constraint, `loc` starting with body/query/path, pydantic-style `type` names.
 */
@Injectable()
export class LarderValidationPipe extends ValidationPipe {
  constructor() {
    super({ transform: true, whitelist: true, exceptionFactory: (errors) => new RawErrors(errors) });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const loc = LOCATION[metadata.type] ?? metadata.type;
    const isDto =
      typeof metadata.metatype === 'function' &&
      ![String, Number, Boolean, Object, Array].includes(metadata.metatype as never);
    if (metadata.type === 'body' && isDto) {
      if (value === undefined || value === null || value === '') value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new ValidationFailedError([
          {
            loc: ['body'],
            msg: 'Input should be a valid dictionary or object',
            type: 'model_attributes_type',
            input: value,
          },
        ]);
      }
    }
    if (isDto) {
      const reserved = reservedKey(value, [loc]);
      if (reserved) throw reserved;
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof RawErrors) throw new ValidationFailedError(validationDetail(err.errors, [loc]));
      throw err;
    }
  }
}

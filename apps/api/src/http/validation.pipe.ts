import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '@larder/kernel';

class RawErrors extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('validation failed');
  }
}

const CONSTRAINT_TYPES: Record<string, string> = {
  isString: 'string_type',
  isInt: 'int_type',
  isNumber: 'float_type',
  isBoolean: 'bool_type',
  isBooleanString: 'bool_parsing',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  isIn: 'enum',
  isEnum: 'enum',
  isIso8601: 'datetime_parsing',
  isArray: 'list_type',
  isObject: 'dict_type',
  isNotEmpty: 'string_too_short',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  arrayMaxSize: 'too_long',
  arrayMinSize: 'too_short',
  isUuid: 'uuid_parsing',
  nestedValidation: 'model_type',
  whitelistValidation: 'extra_forbidden',
};

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
    const isDto = typeof metadata.metatype === 'function' && ![String, Number, Boolean, Object, Array].includes(metadata.metatype as never);
    if (metadata.type === 'body' && isDto) {
      if (value === undefined || value === null || value === '') value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new ValidationFailedError([{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type', input: value }]);
      }
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof RawErrors) throw new ValidationFailedError(flatten(err.errors, [loc]));
      throw err;
    }
  }
}

function flatten(errors: ValidationError[], prefix: (string | number)[]): ValidationFailedError['detail'] {
  const out: ValidationFailedError['detail'] = [];
  for (const e of errors) {
    const key = /^\d+$/.test(e.property) ? Number(e.property) : e.property;
    const loc = [...prefix, key];
    for (const [name, msg] of Object.entries(e.constraints ?? {})) {
      // a check may name its contract type itself (`Check` of the kernel)
      const declared = (e.contexts?.[name] as { type?: string } | undefined)?.type;
      out.push({ loc, msg, type: declared ?? CONSTRAINT_TYPES[name] ?? 'value_error', input: e.value });
    }
    if (e.children?.length) out.push(...flatten(e.children, loc));
  }
  return out;
}

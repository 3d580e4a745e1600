import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError, validationDetail } from '@larder/kernel';

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
    const isDto = typeof metadata.metatype === 'function' && ![String, Number, Boolean, Object, Array].includes(metadata.metatype as never);
    if (metadata.type === 'body' && isDto) {
      if (value === undefined || value === null || value === '') value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new ValidationFailedError([{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type', input: value }]);
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

/** Keys class-transformer cannot carry through a nested plain object (see `reservedKey`). */
const RESERVED_KEYS = new Set(['constructor', '__proto__']);

/**
 * class-transformer takes a nested plain object's `constructor` property for its class (a string or a
 * list there threw a TypeError: a 500) and silently drops keys named `constructor` or `__proto__`, so
 * such keys below the top level (free-form metadata, filters, config) are refused with their `loc`.
 * Iterative: the JSON middleware bounds the depth, but this runs on any DTO-bound value.
 */
export function reservedKey(value: unknown, loc: (string | number)[]): ValidationFailedError | null {
  const stack: Array<{ value: unknown; loc: (string | number)[]; nested: boolean }> = [{ value, loc, nested: false }];
  while (stack.length) {
    const { value: v, loc: at, nested } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    for (const [k, child] of Object.entries(v)) {
      const key = Array.isArray(v) ? Number(k) : k;
      if (nested && typeof key === 'string' && RESERVED_KEYS.has(key)) {
        return new ValidationFailedError([{ loc: [...at, key], msg: `Keys named '${key}' are not supported in nested objects`, type: 'value_error', input: child }]);
      }
      stack.push({ value: child, loc: [...at, key], nested: true });
    }
  }
  return null;
}

import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, validate, ValidateBy, ValidationError, ValidationOptions } from 'class-validator';
import { ValidationDetail, ValidationFailedError } from './errors';

/** The contract's `type` of a failed check (pydantic's names), carried in a class-validator constraint's context. */
export interface CheckContext {
  type: string;
}

/**
 * One check of a request DTO field that answers with the contract's 422 entry
 * (`HTTPValidationError.detail[]`): `type` is pydantic's name for the failure (it travels in the
 * constraint's context, which `validationDetail` reads) and `msg` the message. A field's checks are
 * written so that they exclude each other: a bad field reports one problem, as pydantic does.
 */
export function Check(
  name: string,
  type: string,
  msg: string | ((value: unknown) => string),
  valid: (value: unknown, dto: Record<string, unknown>) => boolean,
  options: ValidationOptions = {},
): PropertyDecorator {
  const context: CheckContext = { type };
  return ValidateBy(
    {
      // its own namespace: schema generators read class-validator's names (`max`, `isInt`) as theirs
      name: `check.${name}`,
      validator: {
        validate: (value, args) => valid(value, (args?.object ?? {}) as Record<string, unknown>),
        defaultMessage: (args) => (typeof msg === 'function' ? msg(args?.value) : msg),
      },
    },
    { ...options, context },
  );
}

/** `Field required` (`missing`) when the field is absent; null counts as absent unless `nullIsValue`. */
export const Required = (nullIsValue = false) =>
  Check('required', 'missing', 'Field required', (v) => v !== undefined && (nullIsValue || v !== null));

/** An optional boolean (null counts as absent). */
export const OptionalBoolean = () =>
  Check(
    'isBoolean',
    'bool_type',
    'Input should be a valid boolean',
    (v) => v === undefined || v === null || typeof v === 'boolean',
  );

/** How a query string spells a boolean: `true`/`false` (what the official clients send) or `1`/`0`, any case. */
export function parseQueryBoolean(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const s = v.toLowerCase();
  return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : v;
}

/** An optional query-string boolean: anything but `true`/`false`/`1`/`0` (`maybe`, a repeated key) is a 422 `bool_parsing`. */
export const QueryBoolean = () =>
  applyDecorators(
    Transform(({ value }) => parseQueryBoolean(value)),
    Check(
      'queryBoolean',
      'bool_parsing',
      'Input should be a valid boolean, unable to interpret input',
      (v) => v === undefined || typeof v === 'boolean',
    ),
  );

/** An optional query-string integer from `min` to `max` (a page's `limit`, `offset`). */
export const QueryInt = (min: number, max: number) =>
  applyDecorators(
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(min),
    Max(max),
  );

export const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** pydantic's `type` for class-validator's own constraints (a `Check` names its own). */
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

/** class-validator's errors as the contract's `detail[]`: one entry per failed constraint, `loc` under `prefix`. */
export function validationDetail(errors: ValidationError[], prefix: (string | number)[]): ValidationDetail[] {
  const out: ValidationDetail[] = [];
  for (const e of errors) {
    const key = /^\d+$/.test(e.property) ? Number(e.property) : e.property;
    const loc = [...prefix, key];
    for (const [name, msg] of Object.entries(e.constraints ?? {})) {
      const declared = (e.contexts?.[name] as Partial<CheckContext> | undefined)?.type;
      out.push({ loc, msg, type: declared ?? CONSTRAINT_TYPES[name] ?? 'value_error', input: e.value });
    }
    if (e.children?.length) out.push(...validationDetail(e.children, loc));
  }
  return out;
}

/**
 * A request DTO from a parsed body or query, as the API's validation pipe makes it (class-transformer,
 * then class-validator with unknown fields dropped); a `ValidationFailedError` with every problem otherwise.
 */
export async function validateRequest<T extends object>(
  dto: new () => T,
  value: unknown,
  location: 'body' | 'query' = 'body',
): Promise<T> {
  if (location === 'body' && (value === undefined || value === null || value === '')) value = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationFailedError([
      {
        loc: [location],
        msg: 'Input should be a valid dictionary or object',
        type: 'model_attributes_type',
        input: value,
      },
    ]);
  }
  const reserved = reservedKey(value, [location]);
  if (reserved) throw reserved;
  const instance = plainToInstance(dto, value);
  const errors = await validate(instance, { whitelist: true });
  if (errors.length) throw new ValidationFailedError(validationDetail(errors, [location]));
  return instance;
}

/** Keys class-transformer takes for class information: in a nested object they crashed or vanished. */
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
        return new ValidationFailedError([
          {
            loc: [...at, key],
            msg: `Keys named '${key}' are not supported in nested objects`,
            type: 'value_error',
            input: child,
          },
        ]);
      }
      stack.push({ value: child, loc: [...at, key], nested: true });
    }
  }
  return null;
}

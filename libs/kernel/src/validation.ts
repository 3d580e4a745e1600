import { ValidateBy, ValidationOptions } from 'class-validator';

/** The contract's `type` of a failed check (pydantic's names), carried in a class-validator constraint's context. */
export interface CheckContext {
  type: string;
}

/**
 * One check of a request DTO field that answers with the contract's 422 entry
 * (`HTTPValidationError.detail[]`): `type` is pydantic's name for the failure (it travels in the
 * constraint's context, which the API's validation pipe reads) and `msg` the message. A field's
 * checks are written so that they exclude each other: a bad field reports one problem, as pydantic does.
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
      name,
      validator: {
        validate: (value, args) => valid(value, (args?.object ?? {}) as Record<string, unknown>),
        defaultMessage: (args) => (typeof msg === 'function' ? msg(args?.value) : msg),
      },
    },
    { ...options, context },
  );
}

/** `Field required` (`missing`) when the field is absent; null counts as absent unless `nullIsValue`. */
export const Required = (nullIsValue = false) => Check('required', 'missing', 'Field required', (v) => v !== undefined && (nullIsValue || v !== null));

/** An optional boolean (null counts as absent). */
export const OptionalBoolean = () => Check('isBoolean', 'bool_type', 'Input should be a valid boolean', (v) => v === undefined || v === null || typeof v === 'boolean');

export const isPlainObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

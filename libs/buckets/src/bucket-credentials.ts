import { isPlainObject, ValidationDetail, ValidationFailedError } from '@larder/kernel';

/** `BucketAssumeRoleCredentials | BucketAccessKeyCredentials`, discriminated by `type`. */
export type BucketCredentialsInput =
  { type: 'access_key'; access_key_id: string; secret_access_key: string } | { type: 'assume_role'; role_arn: string };

const LIMITS = { access_key_id: 128, secret_access_key: 1024, role_arn: 2048 } as const;

/**
 * Checks a `credentials` body field by hand rather than with class-validator: a 422 here never
 * echoes the offending value (`input`), because it may be a secret key.
 */
export function parseCredentials(
  value: unknown,
  loc: (string | number)[],
  allowed: readonly BucketCredentialsInput['type'][] = ['assume_role', 'access_key'],
): BucketCredentialsInput {
  const problems: ValidationDetail[] = [];
  if (value === undefined || value === null)
    throw new ValidationFailedError([{ loc, msg: 'Field required', type: 'missing' }]);
  if (!isPlainObject(value))
    throw new ValidationFailedError([
      { loc, msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type' },
    ]);
  const type =
    value.type ??
    ('role_arn' in value
      ? 'assume_role'
      : 'access_key_id' in value || 'secret_access_key' in value
        ? 'access_key'
        : undefined);
  if (type === undefined)
    throw new ValidationFailedError([{ loc: [...loc, 'type'], msg: 'Field required', type: 'missing' }]);
  if (type !== 'assume_role' && type !== 'access_key') {
    throw new ValidationFailedError([
      {
        loc: [...loc, 'type'],
        msg: `Input tag should be one of ${allowed.map((t) => `'${t}'`).join(', ')}`,
        type: 'union_tag_invalid',
      },
    ]);
  }
  if (!allowed.includes(type)) {
    throw new ValidationFailedError([
      {
        loc: [...loc, 'type'],
        msg: `Only ${allowed.map((t) => `'${t}'`).join(', ')} credentials are accepted here`,
        type: 'literal_error',
      },
    ]);
  }
  const text = (field: keyof typeof LIMITS): string => {
    const v = value[field];
    if (v === undefined || v === null) problems.push({ loc: [...loc, field], msg: 'Field required', type: 'missing' });
    else if (typeof v !== 'string')
      problems.push({ loc: [...loc, field], msg: 'Input should be a valid string', type: 'string_type' });
    else if (v.trim().length === 0)
      problems.push({ loc: [...loc, field], msg: 'String should have at least 1 character', type: 'string_too_short' });
    else if (v.length > LIMITS[field])
      problems.push({
        loc: [...loc, field],
        msg: `String should have at most ${LIMITS[field]} characters`,
        type: 'string_too_long',
      });
    else if ([...v].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127))
      problems.push({ loc: [...loc, field], msg: 'Control characters are not allowed', type: 'value_error' });
    else return v.trim();
    return '';
  };
  const out: BucketCredentialsInput =
    type === 'assume_role'
      ? { type, role_arn: text('role_arn') }
      : { type, access_key_id: text('access_key_id'), secret_access_key: text('secret_access_key') };
  if (problems.length) throw new ValidationFailedError(problems);
  return out;
}

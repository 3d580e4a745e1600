import { createHash } from 'crypto';
import type { IdGenerator } from '@larder/kernel';

/**
 * The prefix of every secret Larder issues: the Mixedbread ecosystem's (the `mxbai` CLI refuses keys
 * without it, `--api-key` and saved keys alike).
 */
export const SECRET_PREFIX = 'mxb_';
/** The prefix of secrets issued before `mxb_`; such keys keep working (a key is found by its hash). */
export const LEGACY_SECRET_PREFIX = 'lrd_';
/** Characters after the prefix: base62, so a key survives shells, URLs and double-click selection. */
export const SECRET_BODY_LENGTH = 43;

const BASE62 = /[A-Za-z0-9]/g;

/**
 * A new secret, `mxb_` + 43 base62 characters (~256 bits). Drawn from the id port's base64url
 * randomness, keeping only its base62 characters: dropping `-` and `_` leaves each kept character
 * uniform over the 62 others.
 */
export function newSecret(ids: Pick<IdGenerator, 'secret'>): string {
  let body = '';
  while (body.length < SECRET_BODY_LENGTH) body += (ids.secret(48).match(BASE62) ?? []).join('');
  return `${SECRET_PREFIX}${body.slice(0, SECRET_BODY_LENGTH)}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * What a key looks like in listings: its own prefix when it has a known one (`mxb_`, or `lrd_` for
 * older keys), twelve stars and the last four characters. A secret of another form (an operator's
 * LARDER_ROOT_KEY) shows no prefix, and a short one no tail either.
 */
export function redact(secret: string): string {
  const prefix = [SECRET_PREFIX, LEGACY_SECRET_PREFIX].find((p) => secret.startsWith(p)) ?? '';
  const tail = secret.length - prefix.length >= 16 ? secret.slice(-4) : '';
  return `${prefix}${'*'.repeat(12)}${tail}`;
}

export { uuidFrom } from '@larder/kernel';

import { createHash } from 'crypto';

export const SECRET_PREFIX = 'lrd_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What a key looks like in listings: the prefix and the last four characters. */
export function redact(secret: string): string {
  return `${secret.slice(0, SECRET_PREFIX.length)}${'*'.repeat(12)}${secret.slice(-4)}`;
}

export { uuidFrom } from '@larder/kernel';

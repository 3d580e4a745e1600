import { createHash } from 'crypto';

export const SECRET_PREFIX = 'lrd_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What a key looks like in listings: the prefix and the last four characters. */
export function redact(secret: string): string {
  return `${secret.slice(0, SECRET_PREFIX.length)}${'*'.repeat(12)}${secret.slice(-4)}`;
}

/** A deterministic UUID (v4 layout) derived from a string, for idempotent bootstrap ids. */
export function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest();
  h[6] = (h[6] & 0x0f) | 0x40;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

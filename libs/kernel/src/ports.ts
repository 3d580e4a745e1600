import { createHash, randomUUID, randomBytes } from 'crypto';

/** Time comes from this port so tests are deterministic. */
export interface Clock {
  now(): Date;
}
export const CLOCK = Symbol('CLOCK');
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

/** Ids and randomness come from this port so tests are deterministic. */
export interface IdGenerator {
  uuid(): string;
  /** `bytes` of cryptographically secure randomness, base64url encoded. */
  secret(bytes: number): string;
}
export const ID_GENERATOR = Symbol('ID_GENERATOR');
export class RandomIdGenerator implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }
  secret(bytes: number): string {
    return randomBytes(bytes).toString('base64url');
  }
}

/** A deterministic UUID (v4 layout) derived from a string, for idempotent ids (bootstrap, retries). */
export function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest();
  h[6] = (h[6] & 0x0f) | 0x40;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

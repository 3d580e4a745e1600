import { randomUUID, randomBytes } from 'crypto';

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

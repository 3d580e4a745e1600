/**
 * Errors that cross the HTTP boundary. The API's exception filter turns each into the contract's
 * `{error:{message,code,type}, message}` body with `status`.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly type: string;
  /** Extra response headers (e.g. retry hints). */
  headers: Record<string, string> = {};
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends DomainError {
  readonly status = 400;
  readonly type = 'bad_request';
}
export class UnauthorizedError extends DomainError {
  readonly status = 401;
  readonly type = 'unauthorized';
}
export class ForbiddenError extends DomainError {
  readonly status = 403;
  readonly type = 'forbidden';
}
export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly type = 'not_found';
}
export class ConflictError extends DomainError {
  readonly status = 409;
  readonly type = 'conflict';
}
export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly type = 'payload_too_large';
}
export class TooManyRequestsError extends DomainError {
  readonly status = 429;
  readonly type = 'rate_limited';
}
/** The server cannot take the request now (e.g. its search queue is full); `Retry-After` says when to try again. */
export class ServiceUnavailableError extends DomainError {
  readonly status = 503;
  readonly type = 'service_unavailable';
  constructor(message: string, retryAfterSeconds = 1) {
    super(message);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}
/** The write is durable but the read side did not catch up in time. Never retried by the client. */
export class ConsistencyTimeoutError extends DomainError {
  readonly status = 503;
  readonly type = 'consistency_timeout';
  constructor(message: string, retryAfterSeconds = 1) {
    super(message);
    this.headers = { 'retry-after': String(retryAfterSeconds), 'x-should-retry': 'false' };
  }
}

/** One entry of a 422's `detail[]` (pydantic style). */
export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
}

/** A 422 raised from inside a handler; same body shape as DTO validation failures. */
export class ValidationFailedError extends DomainError {
  readonly status = 422;
  readonly type = 'validation_error';
  constructor(readonly detail: ValidationDetail[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }
}

/** Collects every problem of a request before answering 422 with all of them. */
export class Problems {
  readonly list: ValidationDetail[] = [];
  get length(): number {
    return this.list.length;
  }
  add(loc: (string | number)[], msg: string, type: string, input?: unknown): void {
    this.list.push({ loc, msg, type, ...(input !== undefined ? { input } : {}) });
  }
  push(detail: ValidationDetail): void {
    this.list.push(detail);
  }
  throwIfAny(): void {
    if (this.list.length) throw new ValidationFailedError(this.list);
  }
}

/** Raised by event stores when the expected revision does not match. */
export class WrongExpectedRevisionError extends ConflictError {
  constructor(
    readonly stream: string,
    readonly expected: unknown,
    readonly actual: unknown,
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

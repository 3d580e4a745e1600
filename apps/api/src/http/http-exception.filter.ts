import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { DomainError, ValidationFailedError } from '@larder/kernel';

const TYPES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/**
 * Every error leaves as the contract's shape: 422 → `{detail: [{loc, msg, type}], message}`; any
 * other → `{error: {message, code, type}, message}`. Unexpected errors are logged and answered 500
 * without internals.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<{
      headersSent: boolean;
      status(n: number): { json(b: unknown): void };
      setHeader(k: string, v: string): void;
    }>();
    if (res.headersSent) return;
    const { status, body, headers } = this.describe(exception);
    // a conflict does not go away by itself: the official clients would retry it twice otherwise
    if (status === 409) headers['x-should-retry'] = 'false';
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  }

  private describe(exception: unknown): { status: number; body: unknown; headers: Record<string, string> } {
    if (exception instanceof ValidationFailedError) {
      return { status: 422, body: { detail: exception.detail, message: exception.message }, headers: {} };
    }
    if (exception instanceof DomainError) {
      return {
        status: exception.status,
        body: errorBody(exception.status, exception.message, exception.type),
        headers: { ...exception.headers },
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      const message =
        typeof response === 'string'
          ? response
          : ((response as { message?: string | string[] }).message ?? exception.message);
      const text = Array.isArray(message) ? message.join('; ') : message;
      if (status >= 500) this.logger.error(text, exception.stack);
      return { status, body: errorBody(status, text, TYPES[status] ?? 'error'), headers: {} };
    }
    const message = (exception as Error)?.message ?? String(exception);
    if (DATABASE_UNAVAILABLE.test(message)) {
      this.logger.error(`database call failed: ${message}`);
      return {
        status: 503,
        body: errorBody(503, 'The database did not answer in time; retry shortly.', 'service_unavailable'),
        headers: { 'retry-after': '1' },
      };
    }
    this.logger.error(message, (exception as Error)?.stack);
    return { status: 500, body: errorBody(500, 'Internal server error', 'internal_error'), headers: {} };
  }
}

/** pg's messages for a call with no answer in time, or a connection lost or never made. */
const DATABASE_UNAVAILABLE =
  /Query read timeout|timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|ECONNREFUSED|ECONNRESET/;

export function errorBody(status: number, message: string, type: string) {
  return { error: { message, code: status, type }, message };
}

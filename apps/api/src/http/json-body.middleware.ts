import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import {
  BadRequestError,
  DomainError,
  PayloadTooLargeError,
  ValidationFailedError,
  plainInputProblem,
  textProblem,
} from '@larder/kernel';

/** Routes whose body is not JSON: multipart uploads and raw part bytes. */
const NON_JSON_BODY = [/^\/v1\/files\/uploads\/[^/]+\/parts\/[^/]+\/?$/];

export class UnsupportedMediaTypeError extends DomainError {
  readonly status = 415;
  readonly type = 'unsupported_media_type';
}

/**
 * The JSON body parser, with its failures turned into the contract's errors before Nest sees them
 * (Nest would otherwise answer a plain 400 for invalid JSON): invalid JSON → 422 `json_invalid`,
 * too large → 413, a body that is neither JSON nor multipart → 415, nesting deeper than
 * LIMITS.jsonDepth or a key or string that breaks `textProblem`'s rule (NUL, lone surrogate) → 422 with
 * its `loc` (PostgreSQL's jsonb and text refuse those characters, and deep nesting would exhaust the
 * validator's stack). The path and query string pass the same rule first, on every route.
 */
export function jsonBodyMiddleware(limit: string) {
  const parse = json({ limit });
  return (req: Request, res: Response, next: NextFunction) => {
    const odd = oddUrl(req);
    if (odd) {
      req.resume();
      return next(odd);
    }
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const isJson = /^application\/([\w.+-]+\+)?json\b/.test(type);
    if (hasBody && !isJson && !type.startsWith('multipart/form-data') && !NON_JSON_BODY.some((r) => r.test(req.path))) {
      req.resume();
      return next(
        new UnsupportedMediaTypeError(
          `Content-Type ${type ? `'${type}'` : '(none)'} is not supported here: send application/json${req.method === 'POST' ? ' (or multipart/form-data where the route takes a file)' : ''}.`,
        ),
      );
    }
    parse(req, res, (err?: unknown) => {
      if (!err) {
        const problem = isJson ? plainInputProblem(req.body, ['body']) : null;
        return next(problem ?? undefined);
      }
      const e = err as { type?: string; message?: string; limit?: number };
      if (e.type === 'entity.parse.failed') {
        return next(
          new ValidationFailedError([{ loc: ['body'], msg: `JSON decode error: ${e.message}`, type: 'json_invalid' }]),
        );
      }
      if (e.type === 'entity.too.large')
        return next(new PayloadTooLargeError(`Request body exceeds the limit of ${limit}`));
      return next(new BadRequestError(e.message ?? 'Unreadable request body'));
    });
  };
}

/** A path or query string with a bad percent-escape or text that `textProblem` refuses: 422 with its `loc`, before any route sees it. */
function oddUrl(req: Request): ValidationFailedError | null {
  const [path, query = ''] = req.originalUrl.split('?', 2);
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return new ValidationFailedError([
        {
          loc: ['path'],
          msg: `Malformed percent-escape in the path segment '${segment}'`,
          type: 'url_escape',
          input: segment,
        },
      ]);
    }
    const problem = textProblem(decoded, ['path'], 'The path');
    if (problem) return problem;
  }
  for (const pair of query.split('&')) {
    if (!pair) continue;
    const [name, value = ''] = pair.split('=', 2);
    let k: string;
    let v: string;
    try {
      k = decodeURIComponent(name.replace(/\+/g, ' '));
      v = decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return new ValidationFailedError([
        { loc: ['query', name], msg: 'Malformed percent-escape in the query string', type: 'url_escape', input: pair },
      ]);
    }
    const problem =
      textProblem(k, ['query', k.split('\u0000').join('')], 'Query parameters') ??
      textProblem(v, ['query', k], 'Query parameters');
    if (problem) return problem;
  }
  return null;
}

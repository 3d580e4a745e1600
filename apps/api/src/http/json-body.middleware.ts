import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { BadRequestError, PayloadTooLargeError, ValidationFailedError } from '@larder/kernel';

/**
 * The JSON body parser, with its failures turned into the contract's errors before Nest sees them
 * (Nest would otherwise answer a plain 400 for invalid JSON): invalid JSON → 422 `json_invalid`,
 * too large → 413.
 */
export function jsonBodyMiddleware(limit: string) {
  const parse = json({ limit });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; message?: string; limit?: number };
      if (e.type === 'entity.parse.failed') {
        return next(new ValidationFailedError([{ loc: ['body'], msg: `JSON decode error: ${e.message}`, type: 'json_invalid' }]));
      }
      if (e.type === 'entity.too.large') return next(new PayloadTooLargeError(`Request body exceeds the limit of ${limit}`));
      return next(new BadRequestError(e.message ?? 'Unreadable request body'));
    });
}

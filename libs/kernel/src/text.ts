import { ValidationFailedError } from './errors';

type Loc = (string | number)[];

/** `String.prototype.isWellFormed` (Node 20; not yet in the ES2022 library types). */
const isWellFormed = (value: string): boolean => (value as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * The one rule for text that comes in (JSON strings and keys, path segments, query parameters,
 * multipart field names, values and file names): no NUL character and no lone UTF-16 surrogate
 * (`"\ud800"` is valid JSON but not Unicode). PostgreSQL's text and jsonb refuse both, so a string
 * holding either is a 422 at `loc` before any handler sees it. `what` names the text in the message.
 */
export function textProblem(value: string, loc: Loc, what = 'Strings'): ValidationFailedError | null {
  if (value.includes('\u0000'))
    return new ValidationFailedError([
      { loc, msg: `${what} must not contain the NUL character (\\u0000)`, type: 'string_nul' },
    ]);
  if (!isWellFormed(value)) {
    return new ValidationFailedError([
      {
        loc,
        msg: `${what} must be valid Unicode: a UTF-16 surrogate (\\ud800-\\udfff) must be one of a pair`,
        type: 'string_unicode',
      },
    ]);
  }
  return null;
}

import { textProblem, ValidationFailedError } from '@larder/kernel';

/** The longest `description` a file may have. */
export const MAX_FILE_DESCRIPTION_CHARS = 1024;

/**
 * The optional `description` text part of a file upload or replace, checked: undefined when the
 * request has none, null when it is empty (a replace then clears it), else the text. Over
 * MAX_FILE_DESCRIPTION_CHARS characters or text `textProblem` refuses is a 422 at `["body", "description"]`.
 */
export function fileDescription(fields: Record<string, string>): string | null | undefined {
  const v = fields.description;
  if (v === undefined) return undefined;
  const loc = ['body', 'description'];
  const odd = textProblem(v, loc);
  if (odd) throw odd;
  if (v.length > MAX_FILE_DESCRIPTION_CHARS) {
    throw new ValidationFailedError([
      {
        loc,
        msg: `String should have at most ${MAX_FILE_DESCRIPTION_CHARS} characters`,
        type: 'string_too_long',
        input: `${v.slice(0, 40)}…`,
      },
    ]);
  }
  const text = v.trim();
  return text ? text : null;
}

/**
 * The checked description of a multipart request, once its whole body is read. Its rejection is
 * handled when it happens (the handler asks for it only after storing the content).
 */
export function describedBy(fields: Promise<Record<string, string>>): Promise<string | null | undefined> {
  const description = fields.then(fileDescription);
  description.catch(() => undefined);
  return description;
}

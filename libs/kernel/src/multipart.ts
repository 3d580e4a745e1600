import busboy from 'busboy';
import type { Request } from 'express';
import { Readable } from 'stream';
import { ValidationFailedError } from './errors';
import { textProblem } from './text';
import { LIMITS } from './limits';

export interface IncomingFile {
  filename: string;
  mimeType: string | undefined;
  stream: Readable;
}

const missing = (msg: string) => new ValidationFailedError([{ loc: ['body', 'file'], msg, type: 'missing' }]);

/** The text parts a route takes beside its `file` part: name → the most bytes its value may have. */
export type MultipartFields = Readonly<Record<string, number>>;

/**
 * Streams the `file` part of a multipart/form-data request into `consume` (never buffering it) and
 * collects the text parts the route declares in `accepted`, each up to its own size. A text part the
 * route does not take is a 422 at its loc; from then on the request's text parts are read past
 * without being kept, and a `file` part after it is not consumed. Busboy holds at most the largest
 * declared size of the part that reveals an unknown name, and one part more than the route declares
 * (a further one is a 422 too). Answers once the whole body has been read. 422 when the request is
 * not multipart, has no `file` part, or names it with more than
 * LIMITS.filenameChars characters; a failing `consume` fails the request (the rest of the body is
 * drained). `consume` also gets the text fields as a promise settled once the whole body is read (or
 * rejected with the 422 of a refused part): fields may come after the file (the openai client sends
 * `purpose` after `file`), so a consumer that needs them reads the file part first, then awaits them
 * before it commits anything. A field name, field value or file name that `textProblem` refuses is
 * refused the same way (a 422 at its loc).
 */
export function readMultipart<T>(
  req: Request,
  accepted: MultipartFields,
  consume: (file: IncomingFile, fields: Promise<Record<string, string>>) => Promise<T>,
): Promise<{ result: T; fields: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    const names = Object.keys(accepted);
    try {
      // file names and text parts are UTF-8, as every client sends them (busboy's default is latin1)
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fields: names.length + 1, fieldSize: Math.max(0, ...Object.values(accepted)) + 1 },
      });
    } catch {
      reject(missing('Expected multipart/form-data with a file part named "file"'));
      req.resume();
      return;
    }
    const fields: Record<string, string> = {};
    let consumed: Promise<T> | null = null;
    let refused: ValidationFailedError | null = null;
    let fieldsRead!: (f: Record<string, string>) => void;
    let fieldsFailed!: (err: Error) => void;
    const allFields = new Promise<Record<string, string>>((ok, fail) => ((fieldsRead = ok), (fieldsFailed = fail)));
    allFields.catch(() => undefined);
    const refuse = (err: ValidationFailedError) => {
      if (refused) return;
      refused = err;
      // busboy skips (reads past without keeping) every later text part once nobody listens for them
      bb.removeAllListeners('field');
      fieldsFailed(err);
    };
    bb.on('field', (part: string | undefined, value, info) => {
      // busboy names a part without a plain `name` parameter (only `name*`, say) undefined
      const name = part ?? '';
      const text = textProblem(name, ['body', name], 'Field names') ?? textProblem(value, ['body', name]);
      if (text) return refuse(text);
      const max = Object.hasOwn(accepted, name) ? accepted[name] : undefined;
      if (max === undefined) {
        return refuse(
          new ValidationFailedError([
            {
              loc: ['body', name],
              msg: `Extra inputs are not permitted: this endpoint takes ${['file', ...names].map((n) => `"${n}"`).join(', ')}`,
              type: 'extra_forbidden',
            },
          ]),
        );
      }
      if (info.valueTruncated || Buffer.byteLength(value) > max) {
        return refuse(
          new ValidationFailedError([
            { loc: ['body', name], msg: `The part should have at most ${max} bytes`, type: 'string_too_long' },
          ]),
        );
      }
      fields[name] = value;
    });
    bb.on('fieldsLimit', () =>
      refuse(
        new ValidationFailedError([
          {
            loc: ['body'],
            msg: `Too many text parts: this endpoint takes at most ${names.length} beside "file"`,
            type: 'too_long',
          },
        ]),
      ),
    );
    const malformed = (err: Error) =>
      new ValidationFailedError([
        { loc: ['body'], msg: `Malformed multipart body: ${err.message}`, type: 'value_error' },
      ]);
    bb.on('file', (name, stream, info) => {
      // a truncated body errors the part's stream too: never an unhandled 'error' (it ended the process)
      stream.on('error', (err: Error) => {
        fieldsFailed(malformed(err));
        reject(malformed(err));
      });
      if (name !== 'file' || consumed || refused) return stream.resume();
      const text = textProblem(info.filename ?? '', ['body', 'file', 'filename'], 'File names');
      if (text) {
        refuse(text);
        return stream.resume();
      }
      const filename = info.filename || 'unknown_file';
      if (filename.length > LIMITS.filenameChars) {
        refuse(
          new ValidationFailedError([
            {
              loc: ['body', 'file', 'filename'],
              msg: `File names are at most ${LIMITS.filenameChars} characters; this one has ${filename.length}`,
              type: 'string_too_long',
            },
          ]),
        );
        return stream.resume();
      }
      consumed = consume({ filename, mimeType: info.mimeType, stream }, allFields);
      consumed.catch(() => stream.resume());
    });
    bb.on('error', (err) => {
      fieldsFailed(malformed(err as Error));
      reject(malformed(err as Error));
      req.unpipe(bb);
      req.resume();
    });
    bb.on('close', () => {
      if (!refused) fieldsRead(fields);
      if (!consumed) return reject(refused ?? missing('Field required: a file part named "file"'));
      const failure = refused;
      consumed.then((result) => (failure ? reject(failure) : resolve({ result, fields })), reject);
    });
    req.pipe(bb);
  });
}

/** The base URL a client used to reach this server. */
export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

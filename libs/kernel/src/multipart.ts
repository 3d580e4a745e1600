import busboy from 'busboy';
import type { Request } from 'express';
import { Readable } from 'stream';
import { ValidationFailedError } from './errors';
import { textProblem } from './text';

export interface IncomingFile {
  filename: string;
  mimeType: string | undefined;
  stream: Readable;
}

const missing = (msg: string) => new ValidationFailedError([{ loc: ['body', 'file'], msg, type: 'missing' }]);

/**
 * Streams the `file` part of a multipart/form-data request into `consume` (never buffering it) and
 * collects the other parts as text fields (up to 50, 1 MiB each). Answers once the whole body has
 * been read. 422 when the request is not multipart or has no `file` part; a failing `consume` fails
 * the request (the rest of the body is drained). `consume` also gets the text fields as a promise
 * settled once the whole body is read: fields may come after the file (the openai client sends
 * `purpose` after `file`), so a consumer that needs them reads the file part first, then awaits them.
 * A field name, field value or file name that `textProblem` refuses fails the request with its 422
 * (and the fields promise with it); the file part is not consumed when it comes after one.
 */
export function readMultipart<T>(req: Request, consume: (file: IncomingFile, fields: Promise<Record<string, string>>) => Promise<T>): Promise<{ result: T; fields: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // file names and text parts are UTF-8, as every client sends them (busboy's default is latin1)
      bb = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files: 1, fields: 50, fieldSize: 1024 * 1024 } });
    } catch {
      reject(missing('Expected multipart/form-data with a file part named "file"'));
      req.resume();
      return;
    }
    const fields: Record<string, string> = {};
    let consumed: Promise<T> | null = null;
    let fieldsRead!: (f: Record<string, string>) => void;
    let fieldsFailed!: (err: Error) => void;
    const allFields = new Promise<Record<string, string>>((ok, fail) => ((fieldsRead = ok), (fieldsFailed = fail)));
    allFields.catch(() => undefined);
    let refused: ValidationFailedError | null = null;
    bb.on('field', (name: string | undefined, value) => {
      // busboy names a part without a plain `name` parameter (only `name*`, say) undefined
      const key = name ?? '';
      refused ??= textProblem(key, ['body', key], 'Field names') ?? textProblem(value, ['body', key]);
      fields[key] = value;
    });
    const malformed = (err: Error) => new ValidationFailedError([{ loc: ['body'], msg: `Malformed multipart body: ${err.message}`, type: 'value_error' }]);
    bb.on('file', (name, stream, info) => {
      // a truncated body errors the part's stream too: never an unhandled 'error' (it ended the process)
      stream.on('error', (err: Error) => {
        fieldsFailed(malformed(err));
        reject(malformed(err));
      });
      if (name !== 'file' || consumed) return stream.resume();
      refused ??= textProblem(info.filename ?? '', ['body', 'file', 'filename'], 'File names');
      if (refused) return stream.resume();
      consumed = consume({ filename: info.filename || 'unknown_file', mimeType: info.mimeType, stream }, allFields);
      consumed.catch(() => stream.resume());
    });
    bb.on('error', (err) => {
      fieldsFailed(malformed(err as Error));
      reject(malformed(err as Error));
      req.unpipe(bb);
      req.resume();
    });
    bb.on('close', () => {
      if (refused) {
        reject(refused);
        return fieldsFailed(refused);
      }
      fieldsRead(fields);
      if (!consumed) return reject(missing('Field required: a file part named "file"'));
      consumed.then((result) => resolve({ result, fields }), reject);
    });
    req.pipe(bb);
  });
}

/** The file part only (see readMultipart). */
export async function withMultipartFile<T>(req: Request, consume: (file: IncomingFile) => Promise<T>): Promise<T> {
  return (await readMultipart(req, consume)).result;
}

/** The base URL a client used to reach this server. */
export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

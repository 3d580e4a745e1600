import busboy from 'busboy';
import type { Request } from 'express';
import { Readable } from 'stream';
import { ValidationFailedError } from './errors';
import { LIMITS } from './limits';

export interface IncomingFile {
  filename: string;
  mimeType: string | undefined;
  stream: Readable;
}

const missing = (msg: string) => new ValidationFailedError([{ loc: ['body', 'file'], msg, type: 'missing' }]);

/**
 * Streams the `file` part of a multipart/form-data request into `consume` (never buffering it) and
 * collects the other parts as text fields (up to 50, 1 MiB each). Answers once the whole body has
 * been read. 422 when the request is not multipart, has no `file` part, or names it with more than
 * LIMITS.filenameChars characters; a failing `consume` fails
 * the request (the rest of the body is drained). `consume` also gets the text fields as a promise
 * settled once the whole body is read: fields may come after the file (the openai client sends
 * `purpose` after `file`), so a consumer that needs them reads the file part first, then awaits them.
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
    bb.on('field', (name, value) => (fields[name] = value));
    const malformed = (err: Error) => new ValidationFailedError([{ loc: ['body'], msg: `Malformed multipart body: ${err.message}`, type: 'value_error' }]);
    bb.on('file', (name, stream, info) => {
      // a truncated body errors the part's stream too: never an unhandled 'error' (it ended the process)
      stream.on('error', (err: Error) => {
        fieldsFailed(malformed(err));
        reject(malformed(err));
      });
      if (name !== 'file' || consumed) return stream.resume();
      const filename = info.filename || 'unknown_file';
      consumed =
        filename.length > LIMITS.filenameChars
          ? Promise.reject(
              new ValidationFailedError([
                { loc: ['body', 'file', 'filename'], msg: `File names are at most ${LIMITS.filenameChars} characters; this one has ${filename.length}`, type: 'string_too_long' },
              ]),
            )
          : consume({ filename, mimeType: info.mimeType, stream }, allFields);
      consumed.catch(() => stream.resume());
    });
    bb.on('error', (err) => {
      fieldsFailed(malformed(err as Error));
      reject(malformed(err as Error));
      req.unpipe(bb);
      req.resume();
    });
    bb.on('close', () => {
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

import busboy from 'busboy';
import type { Request } from 'express';
import { Readable } from 'stream';
import { ValidationFailedError } from './errors';

export interface IncomingFile {
  filename: string;
  mimeType: string | undefined;
  stream: Readable;
  /**
   * Every text part of the request, those after the file part included: settles once the whole body
   * has been read (consume the stream first), rejects with the 422 of a malformed body.
   */
  fields: Promise<Record<string, string>>;
}

const missing = (msg: string) => new ValidationFailedError([{ loc: ['body', 'file'], msg, type: 'missing' }]);

/**
 * Streams the `file` part of a multipart/form-data request into `consume` (never buffering it) and
 * collects the other parts as text fields (up to 50, 1 MiB each). Answers once the whole body has
 * been read. 422 when the request is not multipart or has no `file` part; a failing `consume` fails
 * the request (the rest of the body is drained).
 */
export function readMultipart<T>(req: Request, consume: (file: IncomingFile) => Promise<T>): Promise<{ result: T; fields: Record<string, string> }> {
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
    let endFields: (f: Record<string, string>) => void = () => undefined;
    let failFields: (err: Error) => void = () => undefined;
    const allFields = new Promise<Record<string, string>>((res, rej) => ((endFields = res), (failFields = rej)));
    allFields.catch(() => undefined); // a consumer that never asks for the fields leaves no unhandled rejection
    bb.on('field', (name, value) => (fields[name] = value));
    const malformed = (err: Error) => new ValidationFailedError([{ loc: ['body'], msg: `Malformed multipart body: ${err.message}`, type: 'value_error' }]);
    bb.on('file', (name, stream, info) => {
      // a truncated body errors the part's stream too: never an unhandled 'error' (it ended the process)
      stream.on('error', (err: Error) => {
        reject(malformed(err));
        failFields(malformed(err));
      });
      if (name !== 'file' || consumed) return stream.resume();
      consumed = consume({ filename: info.filename || 'unknown_file', mimeType: info.mimeType, stream, fields: allFields });
      consumed.catch(() => stream.resume());
    });
    bb.on('error', (err) => {
      reject(malformed(err as Error));
      failFields(malformed(err as Error));
      req.unpipe(bb);
      req.resume();
    });
    bb.on('close', () => {
      endFields({ ...fields });
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

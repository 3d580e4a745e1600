import busboy from 'busboy';
import type { Request } from 'express';
import { Readable } from 'stream';
import { ValidationFailedError } from '@larder/kernel';

export interface IncomingFile {
  filename: string;
  mimeType: string | undefined;
  stream: Readable;
}

const missing = (msg: string) => new ValidationFailedError([{ loc: ['body', 'file'], msg, type: 'missing' }]);

/**
 * Streams the `file` part of a multipart/form-data request into `consume` (never buffering it);
 * other parts are skipped. 422 when the request is not multipart or has no `file` part.
 */
export function withMultipartFile<T>(req: Request, consume: (file: IncomingFile) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { files: 1, fields: 50 } });
    } catch {
      reject(missing('Expected multipart/form-data with a file part named "file"'));
      req.resume();
      return;
    }
    let handled = false;
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || handled) {
        stream.resume();
        return;
      }
      handled = true;
      consume({ filename: info.filename || 'unknown_file', mimeType: info.mimeType, stream }).then(resolve, (err) => {
        stream.resume();
        reject(err);
      });
    });
    bb.on('error', (err) => reject(new ValidationFailedError([{ loc: ['body'], msg: `Malformed multipart body: ${(err as Error).message}`, type: 'value_error' }])));
    bb.on('close', () => {
      if (!handled) reject(missing('Field required: a file part named "file"'));
    });
    req.pipe(bb);
  });
}

export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

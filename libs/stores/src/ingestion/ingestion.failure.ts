/** How an ingestion attempt's failures are told apart: what fails for good, what is retried, and the code and message recorded. */
import { BucketAccessError } from '@larder/blob-storage';
import { EmbeddingError, OcrError, TranscriptionError } from '@larder/ai';
import {
  ImageTooLargeError,
  MediaTooLongError,
  ParseError,
  UnsupportedFileError,
  UnsupportedMediaError,
} from '@larder/ingestion';

/** A failure that retrying cannot fix. */
export class PermanentFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The file's content is no longer in storage. */
export const contentGone = () =>
  new PermanentFailure('The file content is gone (the file was deleted or replaced)', 'file_missing');

/** A parser's error as the attempt treats it: input that cannot be parsed fails for good; OCR and transcription errors, timeouts and aborts may pass and are retried. */
export function parseFailure(err: Error, filename: string): Error {
  if (
    err instanceof UnsupportedFileError ||
    err instanceof ParseError ||
    err instanceof UnsupportedMediaError ||
    err instanceof ImageTooLargeError ||
    err instanceof MediaTooLongError
  ) {
    return new PermanentFailure(err.message, err.code);
  }
  if (err instanceof OcrError || err instanceof TranscriptionError) return err;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return err;
  return new PermanentFailure(`Could not parse ${filename}: ${err.message}`, 'parse_error');
}

/** A failed attempt as it is recorded: whether retrying cannot help, its error code and its message. */
export function describeFailure(
  err: unknown,
  attemptTimeoutMs: number,
): { permanent: boolean; code: string; message: string } {
  const bucketFailure = err instanceof BucketAccessError;
  const permanent =
    err instanceof PermanentFailure ||
    ((err instanceof EmbeddingError || err instanceof TranscriptionError) && !err.retryable) ||
    (bucketFailure && !err.transient);
  const code =
    err instanceof PermanentFailure ||
    err instanceof EmbeddingError ||
    err instanceof OcrError ||
    err instanceof TranscriptionError
      ? err.code
      : bucketFailure
        ? 'bucket_error'
        : (err as Error).name === 'TimeoutError'
          ? 'timeout'
          : 'ingestion_error';
  const message =
    (err as Error).name === 'TimeoutError'
      ? `Ingestion took longer than ${attemptTimeoutMs} ms`
      : (err as Error).message;
  return { permanent, code, message };
}

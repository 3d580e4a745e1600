import type { Readable } from 'stream';

export class UploadPartCommand {
  constructor(
    readonly uploadId: string,
    /** -1 when the path segment is not a number (the signature then fails). */
    readonly partNumber: number,
    readonly expires: string | undefined,
    readonly signature: string | undefined,
    readonly body: Readable,
  ) {}
}

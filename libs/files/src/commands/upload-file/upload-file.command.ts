import type { Readable } from 'stream';

export class UploadFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly filename: string,
    /** As declared by the client; missing or generic types are guessed from the extension. */
    readonly mimeType: string | undefined,
    readonly body: Readable,
    /** The `description` part, known once the whole request body is read (after the content). */
    readonly description: Promise<string | null | undefined> = Promise.resolve(undefined),
  ) {}
}

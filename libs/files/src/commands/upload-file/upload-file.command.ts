import type { Readable } from 'stream';

export class UploadFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly filename: string,
    /** As declared by the client; missing or generic types are guessed from the extension. */
    readonly mimeType: string | undefined,
    readonly body: Readable,
    /**
     * OpenAI's `purpose` form field (validated; undefined when absent). It may follow the file part, so
     * it settles once the whole body is read: the content is stored first, then the purpose awaited.
     */
    readonly purpose: Promise<string | undefined> = Promise.resolve(undefined),
    /** The `description` part (checked; undefined when absent), settled the same way. */
    readonly description: Promise<string | null | undefined> = Promise.resolve(undefined),
  ) {}
}

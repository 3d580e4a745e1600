import type { Readable } from 'stream';

export class ReplaceFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly fileId: string,
    readonly filename: string,
    /** As declared by the client; missing or generic types are guessed from the extension. */
    readonly mimeType: string | undefined,
    readonly body: Readable,
    /** The `description` part (null: clear it; undefined: keep it), known once the whole body is read. */
    readonly description: Promise<string | null | undefined> = Promise.resolve(undefined),
  ) {}
}

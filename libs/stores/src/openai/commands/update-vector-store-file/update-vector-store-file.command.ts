export class UpdateVectorStoreFileCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    readonly vectorStoreId: string,
    readonly fileId: string,
    /** The store file's new metadata (null clears it). */
    readonly attributes: Record<string, string | number | boolean> | null,
  ) {}
}

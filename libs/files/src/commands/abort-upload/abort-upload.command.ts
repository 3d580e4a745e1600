export class AbortUploadCommand {
  constructor(
    /** null: any organization (the expiry sweeper). */
    readonly organizationId: string | null,
    readonly actor: string,
    readonly uploadId: string,
    readonly reason: 'aborted' | 'expired' = 'aborted',
  ) {}
}

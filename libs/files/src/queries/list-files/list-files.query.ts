import type { CursorRequest } from '@larder/kernel';

export class ListFilesQuery {
  constructor(
    readonly organizationId: string,
    readonly page: CursorRequest,
    /** Fuzzy name search; best matches first. */
    readonly q: string | undefined,
  ) {}
}

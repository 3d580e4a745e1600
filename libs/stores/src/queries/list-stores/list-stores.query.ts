import type { CursorRequest } from '@larder/kernel';

export class ListStoresQuery {
  constructor(
    readonly organizationId: string,
    readonly paging: CursorRequest,
    /** Fuzzy match on name and description (best first); null lists newest first. */
    readonly q: string | null,
  ) {}
}

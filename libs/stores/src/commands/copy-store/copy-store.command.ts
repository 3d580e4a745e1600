import type { ScopeEntry } from '@larder/kernel';

export class CopyStoreCommand {
  constructor(
    readonly organizationId: string,
    readonly actor: string,
    /** The caller's scope: a copy needs `read` on the source. */
    readonly scope: ScopeEntry[] | null,
    /** The source store, by id or name. */
    readonly storeIdentifier: string,
    readonly input: { name: string; description?: string | null; metadata?: unknown },
  ) {}
}

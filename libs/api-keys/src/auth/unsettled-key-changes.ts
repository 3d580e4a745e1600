import { Injectable } from '@nestjs/common';
import type { ScopeEntry } from '@larder/kernel';
import type { ApiKeyRow } from '@larder/projections/api-keys/api-keys.reader';
import type { ApiKeyState } from '../api-key.aggregate';

/** A key as a stored write decided it, ahead of the read model. */
export interface UnsettledKeyChange {
  /** The key stream's revision after the write; the read model has applied it once its row's revision reaches it. */
  revision: number;
  status: ApiKeyState['status'];
  /** The secret's hash after a reroll (absent: unchanged by the writes noted). */
  secretHash?: string;
  expiresAt: string | null;
  scope: ScopeEntry[] | null;
}

/** At most this many changes are kept; the oldest goes first (each is dropped anyway once its read model row catches up). */
const MAX_CHANGES = 10_000;

/**
 * Key writes (revoke, reroll, delete, update) this process answered before the api-keys read model
 * applied them: the guard checks a key against its noted change, so that a revoked, rerolled or deleted
 * key is refused on the very next request however late the read model is (it is then behind by at
 * most this process's own writes).
 */
@Injectable()
export class UnsettledKeyChanges {
  private readonly byId = new Map<string, UnsettledKeyChange>();

  note(apiKeyId: string, revision: number, state: ApiKeyState, secretHash?: string): void {
    const prev = this.byId.get(apiKeyId);
    this.byId.delete(apiKeyId);
    if (this.byId.size >= MAX_CHANGES) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(apiKeyId, {
      revision,
      status: state.status,
      secretHash: secretHash ?? prev?.secretHash,
      expiresAt: state.expiresAt,
      scope: state.scope,
    });
  }

  /** The change to this key its read model row does not show yet, if any. */
  pending(row: Pick<ApiKeyRow, 'id' | 'revision'>): UnsettledKeyChange | null {
    const change = this.byId.get(row.id);
    if (!change) return null;
    if (Number(row.revision) >= change.revision) {
      this.byId.delete(row.id);
      return null;
    }
    return change;
  }
}

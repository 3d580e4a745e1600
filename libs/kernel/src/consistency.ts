import { Position } from './events';

/**
 * Read-your-writes: a command endpoint calls `waitFor` with the position its append returned and
 * answers only once the named projections have processed it (bounded wait, then
 * `ConsistencyTimeoutError`, a 503 the client does not retry).
 */
export interface ReadModelConsistency {
  waitFor(projections: readonly string[], position: Position | null): Promise<void>;
  /**
   * A token that changes whenever any of these read models changes in this process, for caches of
   * hot lookups (taken before the read, checked on use); null when this process does not apply
   * them itself (a separate worker does), so nothing may be cached.
   */
  epoch?(projections: readonly string[]): string | null;
}
export const READ_MODEL_CONSISTENCY = Symbol('READ_MODEL_CONSISTENCY');

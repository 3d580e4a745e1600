import { Position } from './events';
import { ConsistencyTimeoutError } from './errors';
import { reportReadLag } from './read-lag';

/** The read models a write can wait for (the projection names of the registry). */
export type ProjectionName =
  | 'organizations'
  | 'api-keys'
  | 'files'
  | 'file-uploads'
  | 'stores'
  | 'chunk-index'
  | 'search-rules'
  | 'activity'
  | 'billing'
  | 'buckets'
  | 'trace-destinations';

/**
 * Read-your-writes: a command endpoint calls `waitFor` with the position its append returned and
 * answers only once the named projections have processed it (bounded wait, then
 * `ConsistencyTimeoutError`, a 503 the client does not retry).
 */
export interface ReadModelConsistency {
  waitFor(projections: readonly ProjectionName[], position: Position | null): Promise<void>;
  /**
   * A token that changes whenever any of these read models changes in this process, for caches of
   * hot lookups (taken before the read, checked on use); null when this process does not apply
   * them itself (a separate worker does), so nothing may be cached.
   */
  epoch?(projections: readonly ProjectionName[]): string | null;
  /** How far a projection has applied the log (null: not known here). */
  positionOf?(projection: ProjectionName): Promise<Position | null>;
}
export const READ_MODEL_CONSISTENCY = Symbol('READ_MODEL_CONSISTENCY');

/**
 * The wait that follows a stored write (a stored event is a fact, never turned into an error): true once the read models have applied
 * `position`; false when they are late, in which case the write stays stored, the response says that
 * reads may lag (`Larder-Read-Lag`), and the caller answers from its decided state. Never throws a
 * timeout: a stored event is a fact, not an error.
 */
export async function settle(
  consistency: ReadModelConsistency,
  projections: readonly ProjectionName[],
  position: Position | null,
): Promise<boolean> {
  try {
    await consistency.waitFor(projections, position);
    return true;
  } catch (err) {
    if (!(err instanceof ConsistencyTimeoutError)) throw err;
    reportReadLag(projections);
    return false;
  }
}

/**
 * A cache of read-model lookups, each entry tagged with the read models' epoch when it was taken
 * (before the read) and used only while that epoch holds. Caches nothing where `epoch` is null.
 */
export class ReadModelCache {
  private readonly entries = new Map<string, { epoch: string; value: unknown }>();

  constructor(
    private readonly consistency: ReadModelConsistency,
    private readonly maxEntries = 10_000,
  ) {}

  async get<T>(key: string, projections: readonly ProjectionName[], load: () => Promise<T>): Promise<T> {
    const epoch = this.consistency.epoch?.(projections) ?? null;
    const hit = epoch !== null ? this.entries.get(key) : undefined;
    if (hit && hit.epoch === epoch) return hit.value as T;
    const value = await load();
    if (epoch !== null) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { epoch, value });
    }
    return value;
  }
}

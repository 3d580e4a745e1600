import { Position } from './events';

/**
 * Read-your-writes: a command endpoint calls `waitFor` with the position its append returned and
 * answers only once the named projections have processed it (bounded wait, then
 * `ConsistencyTimeoutError`, a 503 the client does not retry).
 */
export interface ReadModelConsistency {
  waitFor(projections: readonly string[], position: Position | null): Promise<void>;
}
export const READ_MODEL_CONSISTENCY = Symbol('READ_MODEL_CONSISTENCY');

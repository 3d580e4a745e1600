import { AsyncLocalStorage } from 'async_hooks';

/** The response header a write sets when it was stored but a read model it touches has not caught up yet. */
export const READ_LAG_HEADER = 'larder-read-lag';

interface RequestScope {
  setHeader(name: string, value: string): void;
  readonly headersSent: boolean;
  lagging?: Set<string>;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `next` (the rest of an HTTP request) where `reportReadLag` can reach its response. */
export function withReadLagReporting(
  res: { setHeader(name: string, value: string): unknown; headersSent: boolean },
  next: () => void,
): void {
  scope.run(
    {
      setHeader: (n, v) => void res.setHeader(n, v),
      get headersSent() {
        return res.headersSent;
      },
    },
    next,
  );
}

/**
 * Says on the current response that reads of these read models may not show the write yet
 * (`Larder-Read-Lag: stores, chunk-index`). Outside a request (CLI, reactors) it does nothing.
 */
export function reportReadLag(projections: readonly string[]): void {
  const s = scope.getStore();
  if (!s) return;
  s.lagging ??= new Set();
  for (const p of projections) s.lagging.add(p);
  if (!s.headersSent) s.setHeader(READ_LAG_HEADER, [...s.lagging].join(', '));
}

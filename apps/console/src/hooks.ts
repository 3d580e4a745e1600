import { useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Loads again (keeps the current data on screen meanwhile). */
  reload: () => void;
}

/**
 * Runs `load` when `key` changes (and on reload), cancelling the previous run; with `pollMs` it runs
 * again every `pollMs` while `shouldPoll(data)` holds (the ingestion status, live).
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  pollMs = 0,
  shouldPoll?: (data: T) => boolean,
): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean; key: string }>({
    data: null,
    error: null,
    loading: true,
    key,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  const pollRef = useRef(shouldPoll);
  useEffect(() => {
    loadRef.current = load;
    pollRef.current = shouldPoll;
  });
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = () => {
      loadRef.current(ctl.signal).then(
        (data) => {
          if (ctl.signal.aborted) return;
          setState({ data, error: null, loading: false, key });
          if (pollMs > 0 && pollRef.current?.(data)) timer = setTimeout(run, pollMs);
        },
        (error: unknown) => {
          if (ctl.signal.aborted) return;
          setState((s) => ({ data: s.key === key ? s.data : null, error, loading: false, key }));
        },
      );
    };
    run();
    return () => {
      ctl.abort();
      clearTimeout(timer);
    };
  }, [key, tick, pollMs]);

  const current = state.key === key;
  return {
    data: current ? state.data : null,
    error: current ? state.error : null,
    loading: !current || state.loading,
    reload,
  };
}

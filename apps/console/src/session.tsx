import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { Api, ApiError } from './api';

/**
 * The signed-in API key lives in sessionStorage only: it ends with the tab, is never put in a URL,
 * and is sent only as `Authorization: Bearer`. Any 401 signs the session out.
 */
const STORAGE_KEY = 'larder.console.apiKey';

interface Session {
  api: Api | null;
  /** Last four characters of the key, to recognise it among `redacted_value`s. */
  keyTail: string | null;
  /** Why the session ended (a 401, a revoked key), shown on the sign-in page. */
  notice: string | null;
  signIn: (key: string) => Promise<void>;
  signOut: (notice?: string | null) => void;
  /** Switches to a new secret of the same key (after a reroll of the key in use). */
  replaceKey: (key: string) => void;
}

const SessionContext = createContext<Session | null>(null);

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [key, setKey] = useState<string | null>(readStoredKey);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback((why: string | null = null) => {
    sessionStorage.removeItem(STORAGE_KEY);
    setKey(null);
    setNotice(why);
  }, []);

  const replaceKey = useCallback((next: string) => {
    sessionStorage.setItem(STORAGE_KEY, next);
    setKey(next);
  }, []);

  const api = useMemo(
    () => (key ? new Api(key, (message) => signOut(`Signed out: the API key was not accepted (${message}).`)) : null),
    [key, signOut],
  );

  const signIn = useCallback(async (candidate: string) => {
    const trimmed = candidate.trim();
    if (!trimmed) throw new ApiError(0, 'Enter an API key.');
    // A scoped key may be refused the store list (403) and still be valid; only a 401 means it is not.
    const probe = new Api(trimmed, () => undefined);
    try {
      await probe.get('/v1/stores', { limit: 1 });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401 || err.status === 0) throw err;
    }
    sessionStorage.setItem(STORAGE_KEY, trimmed);
    setNotice(null);
    setKey(trimmed);
  }, []);

  const value = useMemo<Session>(
    () => ({ api, keyTail: key ? key.slice(-4) : null, notice, signIn, signOut, replaceKey }),
    [api, key, notice, signIn, signOut, replaceKey],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The API of a signed-in session (the pages render only when there is one). */
export function useApi(): Api {
  const { api } = useSession();
  if (!api) throw new Error('not signed in');
  return api;
}

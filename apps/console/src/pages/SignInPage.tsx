import { useState, type FormEvent } from 'react';
import { useSession } from '../session';
import { ErrorBox } from '../components/ErrorBox';

export function SignInPage() {
  const { signIn, notice } = useSession();
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(key);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <main id="main" className="signin">
      <h1>Larder console</h1>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <form onSubmit={(e) => void submit(e)} className="stack" autoComplete="off">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          autoFocus
          required
          spellCheck={false}
          aria-describedby="api-key-help"
        />
        <p id="api-key-help" className="muted">
          The key stays in this browser tab only (session storage) and is sent only in the Authorization header. The
          first start writes the root key to <code>data/root-key</code>.
        </p>
        <ErrorBox error={error} title="Sign-in failed" />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

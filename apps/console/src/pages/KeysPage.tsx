import { useState, type FormEvent } from 'react';
import { seg } from '../api';
import { useApi, useSession } from '../session';
import { useLoad } from '../hooks';
import { dateTime, parseJsonField } from '../format';
import type { ApiKey, ApiKeyCreated, ApiKeyList, Scope } from '../types';
import { ErrorBox } from '../components/ErrorBox';
import { Confirm, Dialog } from '../components/Dialog';
import { CopyButton, Loading } from '../components/bits';

type Pending = { kind: 'revoke' | 'reroll' | 'delete'; key: ApiKey } | null;

const isDead = (k: ApiKey) => k.expires_at != null && new Date(k.expires_at).getTime() <= Date.now();
const scopeText = (scope: Scope[] | null | undefined) =>
  scope && scope.length
    ? scope.map((s) => [s.method, s.resource_type, s.resource_id].filter(Boolean).join(' ')).join('; ')
    : 'everything in the organization';

export function KeysPage() {
  const api = useApi();
  const { keyTail, signOut, replaceKey } = useSession();
  const keys = useLoad((signal) => api.get<ApiKeyList>('/v1/api-keys', { limit: 1000 }, signal), 'keys');
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ title: string; key: ApiKeyCreated } | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  /** The key this session signed in with: its redacted value ends with the same four characters. */
  const isMine = (k: ApiKey) => keyTail != null && k.redacted_value.endsWith(keyTail) && !isDead(k);

  const act = async () => {
    if (!pending) return;
    const { kind, key } = pending;
    const mine = isMine(key);
    setBusy(true);
    setError(null);
    try {
      if (kind === 'revoke') await api.post(`/v1/api-keys/${seg(key.id)}/revoke`);
      if (kind === 'delete') await api.request('DELETE', `/v1/api-keys/${seg(key.id)}`);
      if (kind === 'reroll') {
        const created = await api.post<ApiKeyCreated>(`/v1/api-keys/${seg(key.id)}/reroll`);
        // the old secret stopped working when the reroll answered: carry on with the new one
        if (mine) replaceKey(created.value);
        setSecret({ title: `New secret of ${key.name}`, key: created });
      }
      setPending(null);
      if (mine && kind !== 'reroll') {
        signOut(
          `Signed out: the key this session used (${key.name}) was ${kind === 'revoke' ? 'revoked' : 'deleted'}.`,
        );
        return;
      }
      keys.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <div className="page-head">
        <h1 id="keys-title">API keys</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create key
        </button>
      </div>
      <ErrorBox error={keys.error} />
      {keys.loading && !keys.data ? <Loading what="keys" /> : null}
      {keys.data ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">API keys of the organization, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scope</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id} data-key={k.name}>
                  <td data-label="Name">
                    {k.name} {isMine(k) ? <span className="badge badge-completed">this session</span> : null}
                  </td>
                  <td data-label="Key">
                    <code>{k.redacted_value}</code>
                  </td>
                  <td data-label="Scope" className="small">
                    {scopeText(k.scope)}
                  </td>
                  <td data-label="Created">{dateTime(k.created_at)}</td>
                  <td data-label="Last used">{dateTime(k.last_active_at)}</td>
                  <td data-label="Expires">
                    {isDead(k) ? (
                      <span className="badge badge-failed">revoked or expired {dateTime(k.expires_at)}</span>
                    ) : (
                      dateTime(k.expires_at)
                    )}
                  </td>
                  <td className="actions-cell">
                    {!isDead(k) ? (
                      <>
                        <button
                          type="button"
                          onClick={() => setPending({ kind: 'reroll', key: k })}
                          aria-label={`Reroll ${k.name}`}
                        >
                          Reroll
                        </button>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => setPending({ kind: 'revoke', key: k })}
                          aria-label={`Revoke ${k.name}`}
                        >
                          Revoke
                        </button>
                      </>
                    ) : null}
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setPending({ kind: 'delete', key: k })}
                      aria-label={`Delete ${k.name}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      <Dialog title="Create an API key" open={creating} onClose={() => setCreating(false)}>
        <CreateKeyForm
          onCreated={(k) => {
            setCreating(false);
            setSecret({ title: `Secret of ${k.name}`, key: k });
            keys.reload();
          }}
        />
      </Dialog>
      <Dialog title={secret?.title ?? 'Secret'} open={secret !== null} onClose={() => setSecret(null)}>
        {secret ? (
          <div className="stack">
            <p>
              <strong>This is the only time the secret is shown.</strong> Copy it now; Larder keeps only its hash.
            </p>
            <label htmlFor="secret-value">Secret</label>
            <input
              id="secret-value"
              data-autofocus
              className="mono"
              readOnly
              value={secret.key.value}
              onFocus={(e) => e.target.select()}
            />
            <div className="actions left">
              <CopyButton text={secret.key.value} label="Copy secret" />
            </div>
            <div className="actions">
              <button type="button" className="primary" onClick={() => setSecret(null)}>
                Done
              </button>
            </div>
          </div>
        ) : null}
      </Dialog>
      <Confirm
        title={
          pending
            ? `${pending.kind === 'revoke' ? 'Revoke' : pending.kind === 'reroll' ? 'Reroll' : 'Delete'} ${pending.key.name}?`
            : ''
        }
        open={pending !== null}
        onCancel={() => {
          setPending(null);
          setError(null);
        }}
        onConfirm={() => void act()}
        confirmLabel={
          pending?.kind === 'revoke' ? 'Revoke key' : pending?.kind === 'reroll' ? 'Reroll key' : 'Delete key'
        }
        busy={busy}
      >
        <p>
          {pending?.kind === 'reroll'
            ? 'A new secret replaces the current one, which stops working at once.'
            : pending?.kind === 'revoke'
              ? 'The key stops working at once and for good.'
              : 'The key is removed and stops working at once.'}
        </p>
        {pending && isMine(pending.key) ? (
          <p className="notice">
            This is the key this session signed in with.{' '}
            {pending.kind === 'reroll' ? 'The console switches to the new secret.' : 'You will be signed out.'}
          </p>
        ) : null}
        <ErrorBox error={error} />
      </Confirm>
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (k: ApiKeyCreated) => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [scope, setScope] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const body = {
        name: name.trim() || undefined,
        expires_at: expires ? new Date(expires).toISOString() : undefined,
        scope: parseJsonField('Scope', scope) ?? undefined,
      };
      onCreated(await api.post<ApiKeyCreated>('/v1/api-keys', body));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      <label htmlFor="key-name">Name</label>
      <input
        id="key-name"
        data-autofocus
        value={name}
        onChange={(e) => setName(e.target.value)}
        placeholder="API Key"
      />
      <label htmlFor="key-expires">Expires (optional)</label>
      <input id="key-expires" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
      <label htmlFor="key-scope">Scope (JSON list, optional)</label>
      <textarea
        id="key-scope"
        className="mono"
        rows={3}
        value={scope}
        onChange={(e) => setScope(e.target.value)}
        placeholder='[{"method": "search", "resource_type": "store", "resource_id": "handbook"}]'
        spellCheck={false}
        aria-describedby="key-scope-help"
      />
      <p id="key-scope-help" className="muted small">
        Empty: the key may do everything in the organization. Methods: read, write, delete, list, create, search.
      </p>
      <ErrorBox error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create key
        </button>
      </div>
    </form>
  );
}

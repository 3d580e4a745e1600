import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { seg } from '../api';
import { useApi } from '../session';
import { useLoad } from '../hooks';
import { bytes, count, dateTime, json, parseJsonField } from '../format';
import type { CursorList, Store } from '../types';
import { ErrorBox } from '../components/ErrorBox';
import { Confirm, Dialog } from '../components/Dialog';
import { Loading, StatusBadge } from '../components/bits';

export function StoresPage() {
  const api = useApi();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [more, setMore] = useState(0);
  const [editing, setEditing] = useState<Store | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Store | null>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const list = useLoad(async (signal) => {
    const out: Store[] = [];
    let after: string | undefined;
    let hasMore = false;
    // the first page plus every "Show more" asked for, so a reload keeps what is on screen
    for (let i = 0; i <= more; i++) {
      const page = await api.get<CursorList<Store>>('/v1/stores', { limit: 50, q: query || undefined, after }, signal);
      out.push(...page.data);
      hasMore = page.pagination.has_more;
      after = page.pagination.last_cursor ?? undefined;
      if (!hasMore || !after) break;
    }
    return { stores: out, hasMore };
  }, `${query}|${more}`);

  const search = (e: FormEvent) => {
    e.preventDefault();
    setMore(0);
    setQuery(q.trim());
  };

  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    setDeleteError(null);
    try {
      await api.request('DELETE', `/v1/stores/${seg(deleting.id)}`);
      setDeleting(null);
      list.reload();
    } catch (err) {
      setDeleteError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="stores-title">
      <div className="page-head">
        <h1 id="stores-title">Stores</h1>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          Create store
        </button>
      </div>
      <form role="search" className="row" onSubmit={search}>
        <label htmlFor="store-q" className="sr-only">
          Search stores
        </label>
        <input
          id="store-q"
          type="search"
          placeholder="Search by name or description"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="stores" /> : null}
      {list.data && list.data.stores.length === 0 ? (
        <p>{query ? `No store matches “${query}”.` : 'No stores yet: create one to upload files.'}</p>
      ) : null}
      {list.data && list.data.stores.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Stores, with file counts by status, usage and expiry</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Files</th>
                <th scope="col">Usage</th>
                <th scope="col">Expiry</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.stores.map((s) => (
                <tr key={s.id}>
                  <td data-label="Name">
                    <Link to={`/stores/${s.id}`}>{s.name}</Link>
                    {s.description ? <div className="muted small">{s.description}</div> : null}
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={s.status} />
                  </td>
                  <td data-label="Files">
                    <FileCountsCell store={s} />
                  </td>
                  <td data-label="Usage">
                    {bytes(s.usage_bytes)}
                    <div className="muted small">{count(s.usage_tokens)} tokens</div>
                  </td>
                  <td data-label="Expiry">
                    {s.expires_after ? (
                      <>
                        {s.expires_after.days} days inactive
                        <div className="muted small">{s.expires_at ? `on ${dateTime(s.expires_at)}` : ''}</div>
                      </>
                    ) : (
                      'never'
                    )}
                  </td>
                  <td data-label="Updated">{dateTime(s.updated_at)}</td>
                  <td className="actions-cell">
                    <button type="button" onClick={() => setEditing(s)} aria-label={`Edit store ${s.name}`}>
                      Edit
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setDeleting(s)}
                      aria-label={`Delete store ${s.name}`}
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
      {list.data?.hasMore ? (
        <button type="button" onClick={() => setMore((m) => m + 1)}>
          Show more
        </button>
      ) : null}

      <Dialog
        title={editing === 'new' ? 'Create a store' : `Edit store ${editing?.name ?? ''}`}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing !== null ? (
          <StoreForm
            store={editing === 'new' ? null : editing}
            onDone={() => {
              setEditing(null);
              list.reload();
            }}
          />
        ) : null}
      </Dialog>
      <Confirm
        title={`Delete store ${deleting?.name ?? ''}?`}
        open={deleting !== null}
        onCancel={() => {
          setDeleting(null);
          setDeleteError(null);
        }}
        onConfirm={() => void remove()}
        confirmLabel="Delete store"
        busy={busy}
      >
        <p>
          Its {deleting?.file_counts?.total ?? 0} files leave the store and its chunks leave the search index. The files
          themselves stay in the Files API.
        </p>
        <ErrorBox error={deleteError} />
      </Confirm>
    </section>
  );
}

function FileCountsCell({ store }: { store: Store }) {
  const c = store.file_counts;
  if (!c) return <>—</>;
  const parts = [
    ['completed', c.completed],
    ['in progress', c.in_progress],
    ['pending', c.pending],
    ['failed', c.failed],
  ].filter(([, n]) => Number(n) > 0);
  return (
    <>
      {c.total} total
      {parts.length ? <div className="muted small">{parts.map(([k, n]) => `${n} ${k}`).join(', ')}</div> : null}
    </>
  );
}

/** Create (no `store`) or edit: name, description, inactivity expiry, metadata. */
export function StoreForm({ store, onDone }: { store: Store | null; onDone: (s: Store) => void }) {
  const api = useApi();
  const [name, setName] = useState(store?.name ?? '');
  const [description, setDescription] = useState(store?.description ?? '');
  const [days, setDays] = useState(store?.expires_after ? String(store.expires_after.days) : '');
  const [metadata, setMetadata] = useState(json(store?.metadata));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const body = {
        name: name.trim() || undefined,
        description: description.trim() || null,
        expires_after: days.trim() ? { anchor: 'last_active_at', days: Number(days) } : null,
        metadata: parseJsonField('Metadata', metadata),
      };
      const saved = store
        ? await api.request<Store>('PUT', `/v1/stores/${seg(store.id)}`, { body })
        : await api.post<Store>('/v1/stores', body);
      onDone(saved);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      <label htmlFor="store-name">Name</label>
      <input
        id="store-name"
        data-autofocus
        value={name}
        onChange={(e) => setName(e.target.value)}
        required={!store}
        maxLength={128}
        aria-describedby="store-name-help"
        spellCheck={false}
      />
      <p id="store-name-help" className="muted small">
        Lowercase letters, digits, “.” and “-”; usable in place of the id.
      </p>
      <label htmlFor="store-description">Description</label>
      <input
        id="store-description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        maxLength={256}
      />
      <label htmlFor="store-expiry">Expire after days of inactivity (empty: never)</label>
      <input
        id="store-expiry"
        type="number"
        min={1}
        max={3650}
        value={days}
        onChange={(e) => setDays(e.target.value)}
      />
      <label htmlFor="store-metadata">Metadata (JSON)</label>
      <textarea
        id="store-metadata"
        rows={4}
        value={metadata}
        onChange={(e) => setMetadata(e.target.value)}
        spellCheck={false}
        className="mono"
      />
      <ErrorBox error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {store ? 'Save' : 'Create'}
        </button>
      </div>
    </form>
  );
}

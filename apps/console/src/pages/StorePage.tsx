import { useCallback, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { seg } from '../api';
import { useApi } from '../session';
import { useLoad } from '../hooks';
import { bytes, count, dateTime } from '../format';
import type { CursorList, Store, StoreFile } from '../types';
import { uploadToStore, MULTIPART_THRESHOLD } from '../uploads';
import { ErrorBox } from '../components/ErrorBox';
import { Confirm } from '../components/Dialog';
import { Loading, StatusBadge } from '../components/bits';

interface Upload {
  id: number;
  name: string;
  total: number;
  sent: number;
  multipart: boolean;
  phase: 'uploading' | 'attaching' | 'done' | 'error';
  error?: unknown;
}

const STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
const busyStatus = (f: StoreFile) => f.status === 'pending' || f.status === 'in_progress';

export function StorePage() {
  const { storeId = '' } = useParams();
  const api = useApi();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [status, setStatus] = useState('');
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [dragging, setDragging] = useState(false);
  const [deleting, setDeleting] = useState<StoreFile | null>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const nextId = useRef(1);
  const inFlight = uploads.some((u) => u.phase === 'uploading' || u.phase === 'attaching');

  // the store's counts and usage follow the ingestion too (its status is in_progress while any file is)
  const store = useLoad(
    (signal) => api.get<Store>(`/v1/stores/${seg(storeId)}`, undefined, signal),
    storeId,
    1000,
    (s) => s.status === 'in_progress',
  );
  // Live: while any file is pending or in progress the list is read again every second.
  const files = useLoad(
    (signal) =>
      api.request<CursorList<StoreFile>>('POST', `/v1/stores/${seg(storeId)}/files/list`, {
        body: { limit: 100, statuses: status ? [status] : undefined, q: query || undefined },
        signal,
      }),
    `${storeId}|${status}|${query}`,
    1000,
    (list) => list.data.some(busyStatus),
  );
  const reloadFiles = files.reload;
  const reloadStore = store.reload;
  const anyBusy = files.data?.data.some(busyStatus) ?? false;

  const update = (id: number, patch: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.id === id ? { ...u, ...patch } : u)));

  const startUploads = useCallback(
    (list: FileList | File[]) => {
      for (const file of Array.from(list)) {
        const id = nextId.current++;
        setUploads((all) => [
          ...all,
          {
            id,
            name: file.name,
            total: file.size,
            sent: 0,
            multipart: file.size > MULTIPART_THRESHOLD,
            phase: 'uploading',
          },
        ]);
        uploadToStore(api, storeId, file, (p) => update(id, { sent: p.sent, phase: p.phase })).then(
          () => {
            update(id, { phase: 'done', sent: file.size });
            reloadFiles();
            reloadStore();
          },
          (error: unknown) => update(id, { phase: 'error', error }),
        );
      }
    },
    [api, storeId, reloadFiles, reloadStore],
  );

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer.files.length) startUploads(e.dataTransfer.files);
  };

  const remove = async () => {
    if (!deleting) return;
    setDeleteError(null);
    try {
      await api.request('DELETE', `/v1/stores/${seg(storeId)}/files/${seg(deleting.id)}`);
      setDeleting(null);
      files.reload();
      store.reload();
    } catch (err) {
      setDeleteError(err);
    }
  };

  const s = store.data;
  return (
    <section aria-labelledby="store-title">
      <p className="crumbs">
        <Link to="/stores">Stores</Link> /
      </p>
      <div className="page-head">
        <h1 id="store-title">{s ? s.name : 'Store'}</h1>
        {s ? <StatusBadge status={s.status} /> : null}
      </div>
      <ErrorBox error={store.error} />
      {s ? (
        <dl className="facts">
          <div>
            <dt>Files</dt>
            <dd>
              {s.file_counts?.total ?? 0} ({s.file_counts?.completed ?? 0} completed, {s.file_counts?.in_progress ?? 0}{' '}
              in progress, {s.file_counts?.pending ?? 0} pending, {s.file_counts?.failed ?? 0} failed)
            </dd>
          </div>
          <div>
            <dt>Usage</dt>
            <dd>
              {bytes(s.usage_bytes)}, {count(s.usage_tokens)} tokens
            </dd>
          </div>
          <div>
            <dt>Expiry</dt>
            <dd>
              {s.expires_after
                ? `${s.expires_after.days} days after last activity${s.expires_at ? ` (${dateTime(s.expires_at)})` : ''}`
                : 'never'}
            </dd>
          </div>
          <div>
            <dt>Id</dt>
            <dd>
              <code>{s.id}</code>
            </dd>
          </div>
        </dl>
      ) : null}

      <h2>Upload</h2>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>Drop files here, or</p>
        <label htmlFor="file-input" className="button">
          Choose files…
        </label>
        <input
          id="file-input"
          type="file"
          multiple
          className="sr-only"
          onChange={(e) => {
            if (e.target.files?.length) startUploads(e.target.files);
            e.target.value = '';
          }}
        />
        <p className="muted small">Files over {bytes(MULTIPART_THRESHOLD)} are sent in parts (multipart upload).</p>
      </div>
      {uploads.length ? (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.id}>
              <span className="upload-name">{u.name}</span>
              <progress max={u.total || 1} value={u.sent} aria-label={`Upload of ${u.name}`} />
              <span className="small" role="status">
                {u.phase === 'uploading'
                  ? `${Math.round((100 * u.sent) / (u.total || 1))}%${u.multipart ? ' (multipart)' : ''}`
                  : u.phase === 'attaching'
                    ? 'adding to the store…'
                    : u.phase === 'done'
                      ? 'uploaded'
                      : 'failed'}
              </span>
              {u.phase === 'error' ? <ErrorBox error={u.error} title={`Upload of ${u.name} failed`} /> : null}
            </li>
          ))}
        </ul>
      ) : null}

      <h2>Files</h2>
      <form
        role="search"
        className="row"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setQuery(q.trim());
        }}
      >
        <label htmlFor="file-q" className="sr-only">
          Search files
        </label>
        <input
          id="file-q"
          type="search"
          placeholder="Search by file name or external id"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <label htmlFor="file-status">Status</label>
        <select id="file-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any</option>
          {STATUSES.map((x) => (
            <option key={x} value={x}>
              {x.replace('_', ' ')}
            </option>
          ))}
        </select>
        <button type="submit">Search</button>
      </form>
      <p className="muted small" role="status">
        {anyBusy || inFlight ? 'Ingestion running: statuses refresh every second.' : ''}
      </p>
      <ErrorBox error={files.error} />
      {files.loading && !files.data ? <Loading what="files" /> : null}
      {files.data && files.data.data.length === 0 ? <p>No files{status || query ? ' match' : ' yet'}.</p> : null}
      {files.data && files.data.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Files of the store with their ingestion status</caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">Tokens</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.data.data.map((f) => (
                <tr key={f.id} data-file={f.filename}>
                  <td data-label="File">
                    <Link to={`/stores/${storeId}/files/${f.id}`}>{f.filename ?? f.id}</Link>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={f.status} />
                    {f.status === 'failed' && f.last_error ? (
                      <div className="error-inline">
                        {f.last_error.message ?? 'failed'}
                        {f.last_error.code ? <code> {f.last_error.code}</code> : null}
                      </div>
                    ) : null}
                  </td>
                  <td data-label="Size">{bytes(f.usage_bytes)}</td>
                  <td data-label="Tokens">{count(f.usage_tokens)}</td>
                  <td data-label="Added">{dateTime(f.created_at)}</td>
                  <td className="actions-cell">
                    {f.content_url ? (
                      <a
                        className="button"
                        href={f.content_url}
                        download={f.filename}
                        aria-label={`Download ${f.filename ?? f.id}`}
                      >
                        Download
                      </a>
                    ) : null}
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setDeleting(f)}
                      aria-label={`Delete ${f.filename ?? f.id}`}
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
      <Confirm
        title={`Remove ${deleting?.filename ?? 'the file'} from the store?`}
        open={deleting !== null}
        onCancel={() => {
          setDeleting(null);
          setDeleteError(null);
        }}
        onConfirm={() => void remove()}
        confirmLabel="Remove file"
      >
        <p>Its chunks leave the search index at once.</p>
        <ErrorBox error={deleteError} />
      </Confirm>
    </section>
  );
}

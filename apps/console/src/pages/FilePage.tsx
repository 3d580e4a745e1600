import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { seg } from '../api';
import { useApi } from '../session';
import { useLoad } from '../hooks';
import { bytes, count, dateTime, json, parseJsonField } from '../format';
import { chunkText, type Chunk, type Store, type StoreFile } from '../types';
import { ErrorBox } from '../components/ErrorBox';
import { Confirm } from '../components/Dialog';
import { Loading, StatusBadge } from '../components/bits';

export function FilePage() {
  const { storeId = '', fileId = '' } = useParams();
  const [params] = useSearchParams();
  const focusChunk = params.get('chunk');
  const api = useApi();
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(null);

  const store = useLoad((signal) => api.get<Store>(`/v1/stores/${seg(storeId)}`, undefined, signal), storeId);
  const file = useLoad(
    (signal) => api.get<StoreFile>(`/v1/stores/${seg(storeId)}/files/${seg(fileId)}`, { return_chunks: true }, signal),
    `${storeId}|${fileId}`,
    1000,
    (f) => f.status === 'pending' || f.status === 'in_progress',
  );

  useEffect(() => {
    if (focusChunk && file.data?.chunks)
      document.getElementById(`chunk-${focusChunk}`)?.scrollIntoView({ block: 'center' });
  }, [focusChunk, file.data]);

  const remove = async () => {
    setDeleteError(null);
    try {
      await api.request('DELETE', `/v1/stores/${seg(storeId)}/files/${seg(fileId)}`);
      void navigate(`/stores/${storeId}`);
    } catch (err) {
      setDeleteError(err);
    }
  };

  const f = file.data;
  return (
    <section aria-labelledby="file-title">
      <p className="crumbs">
        <Link to="/stores">Stores</Link> / <Link to={`/stores/${storeId}`}>{store.data?.name ?? 'store'}</Link> /
      </p>
      <div className="page-head">
        <h1 id="file-title">{f?.filename ?? 'File'}</h1>
        {f ? <StatusBadge status={f.status} /> : null}
      </div>
      <ErrorBox error={file.error} />
      {file.loading && !f ? <Loading what="the file" /> : null}
      {f ? (
        <>
          {f.status === 'failed' && f.last_error ? (
            <div className="error" role="alert">
              <strong>Ingestion failed</strong>
              {f.last_error.code ? <code> {f.last_error.code}</code> : null}: {f.last_error.message}
            </div>
          ) : null}
          <dl className="facts">
            <div>
              <dt>Size</dt>
              <dd>{bytes(f.usage_bytes)}</dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>{count(f.usage_tokens)}</dd>
            </div>
            <div>
              <dt>Chunks</dt>
              <dd>{f.chunks ? f.chunks.length : '—'}</dd>
            </div>
            <div>
              <dt>Parsing</dt>
              <dd>{f.config?.parsing_strategy ?? 'fast'}</dd>
            </div>
            <div>
              <dt>Added</dt>
              <dd>{dateTime(f.created_at)}</dd>
            </div>
            <div>
              <dt>External id</dt>
              <dd>{f.external_id ?? '—'}</dd>
            </div>
          </dl>
          <div className="actions left">
            {f.content_url ? (
              <a className="button" href={f.content_url} download={f.filename}>
                Download
              </a>
            ) : null}
            <button type="button" className="danger" onClick={() => setDeleting(true)}>
              Remove from store
            </button>
          </div>
          <MetadataEditor key={f.id} storeId={storeId} file={f} onSaved={file.reload} />
          <h2>Chunks</h2>
          {f.chunks && f.chunks.length ? (
            <ol className="chunks" aria-label="Chunks">
              {f.chunks.map((c) => (
                <ChunkView key={c.chunk_index} chunk={c} open={focusChunk === String(c.chunk_index)} />
              ))}
            </ol>
          ) : (
            <p>
              {f.status === 'completed' ? 'This file has no chunks.' : 'Chunks appear once ingestion has completed.'}
            </p>
          )}
        </>
      ) : null}
      <Confirm
        title="Remove this file from the store?"
        open={deleting}
        onCancel={() => {
          setDeleting(false);
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

function MetadataEditor({ storeId, file, onSaved }: { storeId: string; file: StoreFile; onSaved: () => void }) {
  const api = useApi();
  const [text, setText] = useState(json(file.metadata ?? {}));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      const metadata = parseJsonField('Metadata', text) ?? {};
      await api.request('PATCH', `/v1/stores/${seg(storeId)}/files/${seg(file.id)}`, { body: { metadata } });
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="stack" onSubmit={(e) => void save(e)}>
      <h2>
        <label htmlFor="file-metadata">Metadata</label>
      </h2>
      <textarea
        id="file-metadata"
        className="mono"
        rows={5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        spellCheck={false}
        aria-describedby="file-metadata-help"
      />
      <p id="file-metadata-help" className="muted small">
        A JSON object; filters see the new values at once, without re-embedding.
      </p>
      <ErrorBox error={error} />
      <div className="actions left">
        <button type="submit">Save metadata</button>
        <span role="status" className="muted">
          {saved ? 'Saved.' : ''}
        </span>
      </div>
    </form>
  );
}

interface Heading {
  level?: number;
  text?: string;
}

/** Headings path and page of a chunk, from its generated metadata (markdown, pdf, code). */
function chunkPlace(c: Chunk): { headings: string; page: string | null } {
  const g = c.generated_metadata ?? {};
  const path = [
    ...((g.heading_context as Heading[] | undefined) ?? []),
    ...((g.chunk_headings as Heading[] | undefined) ?? []),
  ]
    .map((h) => h.text)
    .filter(Boolean)
    .filter((t, i, all) => all.indexOf(t) === i);
  const pages = g.pages as number[] | undefined;
  const one = typeof g.page === 'number' ? g.page : null;
  const total = typeof g.total_pages === 'number' ? g.total_pages : null;
  const page =
    pages && pages.length > 1 ? `pages ${pages[0]}–${pages[pages.length - 1]}` : one != null ? `page ${one}` : null;
  return { headings: path.join(' › '), page: page && total ? `${page} of ${total}` : page };
}

function ChunkView({ chunk, open }: { chunk: Chunk; open: boolean }) {
  const { headings, page } = chunkPlace(chunk);
  const text = chunkText(chunk);
  return (
    <li id={`chunk-${chunk.chunk_index}`}>
      <details open={open}>
        <summary>
          <span className="chunk-index">Chunk {chunk.chunk_index}</span>
          {headings ? <span className="chunk-headings"> {headings}</span> : null}
          {page ? <span className="muted"> · {page}</span> : null}
          <span className="muted chunk-preview"> {text.slice(0, 90)}</span>
        </summary>
        <div className="chunk-body">
          {headings ? (
            <p>
              <strong>Headings:</strong> {headings}
            </p>
          ) : null}
          {page ? (
            <p>
              <strong>Page:</strong> {page}
            </p>
          ) : null}
          <pre className="chunk-text">{text}</pre>
          <details>
            <summary>Chunk metadata</summary>
            <pre className="mono small">
              {json({
                type: chunk.type,
                mime_type: chunk.mime_type,
                offset: chunk.offset,
                model: chunk.model,
                generated_metadata: chunk.generated_metadata,
              })}
            </pre>
          </details>
        </div>
      </details>
    </li>
  );
}

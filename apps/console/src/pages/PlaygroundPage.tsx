import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { apiError, parseServerTiming, readEvents } from '../api';
import { useApi } from '../session';
import { useLoad } from '../hooks';
import { json, parseJsonField } from '../format';
import { chunkText, type CursorList, type ScoredChunk, type Store } from '../types';
import { ErrorBox } from '../components/ErrorBox';
import { Loading } from '../components/bits';
import { grepTerms, highlight, queryTerms } from '../highlight';

interface Outcome {
  mode: 'search' | 'grep';
  results: ScoredChunk[];
  timing: Array<{ name: string; dur: number }>;
  browserMs: number;
  streamed: boolean;
  marker: RegExp | null;
}

export function PlaygroundPage() {
  const api = useApi();
  const stores = useLoad((signal) => api.get<CursorList<Store>>('/v1/stores', { limit: 100 }, signal), 'stores');
  const [mode, setMode] = useState<'search' | 'grep'>('search');
  const [selected, setSelected] = useState<string[]>([]);
  const [query, setQuery] = useState('');
  const [pattern, setPattern] = useState('');
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [topK, setTopK] = useState('10');
  const [threshold, setThreshold] = useState('0');
  const [filters, setFilters] = useState('');
  const [rerank, setRerank] = useState(false);
  const [agentic, setAgentic] = useState(false);
  const [stream, setStream] = useState(false);
  const [applyRules, setApplyRules] = useState(true);
  const [returnMetadata, setReturnMetadata] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [live, setLive] = useState<string[]>([]);
  const [lastBody, setLastBody] = useState<unknown>(null);

  const storeNames = useMemo(() => new Map((stores.data?.data ?? []).map((s) => [s.id, s.name])), [stores.data]);
  const toggleStore = (id: string) =>
    setSelected((all) => (all.includes(id) ? all.filter((x) => x !== id) : [...all, id]));

  const run = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setLive([]);
    setBusy(true);
    try {
      if (!selected.length) throw new Error('Pick at least one store.');
      const common = {
        store_identifiers: selected,
        top_k: Number(topK) || 10,
        filters: parseJsonField('Filters', filters) ?? undefined,
      };
      const started = performance.now();
      if (mode === 'grep') {
        const body = { ...common, pattern, case_sensitive: caseSensitive, return_metadata: returnMetadata };
        setLastBody(body);
        const res = await api.raw('POST', '/v1/stores/grep', { body });
        const out = (await res.json()) as { data: ScoredChunk[] };
        setOutcome({
          mode,
          results: out.data,
          timing: parseServerTiming(res.headers.get('server-timing')),
          browserMs: performance.now() - started,
          streamed: false,
          marker: grepTerms(pattern, caseSensitive),
        });
        return;
      }
      const body = {
        ...common,
        query,
        search_options: {
          score_threshold: Number(threshold) || 0,
          rerank,
          agentic,
          apply_search_rules: applyRules,
          return_metadata: returnMetadata,
        },
        stream: stream || undefined,
      };
      setLastBody(body);
      const res = await api.raw('POST', '/v1/stores/search', {
        body,
        headers: stream ? { accept: 'text/event-stream' } : {},
      });
      let results: ScoredChunk[] = [];
      if (stream) {
        for await (const ev of readEvents(res)) {
          if (ev.data === '[DONE]') break;
          const data = JSON.parse(ev.data) as unknown;
          if (ev.event === 'search.completed') results = (data as { data: ScoredChunk[] }).data;
          else if (ev.event === 'error') throw apiError(500, data, 'the stream failed');
          else setLive((all) => [...all, `${ev.event} ${summarize(data)}`]);
        }
      } else {
        results = ((await res.json()) as { data: ScoredChunk[] }).data;
      }
      setOutcome({
        mode,
        results,
        timing: parseServerTiming(res.headers.get('server-timing')),
        browserMs: performance.now() - started,
        streamed: stream,
        marker: queryTerms(query),
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="pg-title">
      <h1 id="pg-title">Search playground</h1>
      <form className="playground" onSubmit={(e) => void run(e)}>
        <fieldset className="row">
          <legend>Mode</legend>
          <label>
            <input
              type="radio"
              name="mode"
              value="search"
              checked={mode === 'search'}
              onChange={() => setMode('search')}
            />{' '}
            Search
          </label>
          <label>
            <input type="radio" name="mode" value="grep" checked={mode === 'grep'} onChange={() => setMode('grep')} />{' '}
            Grep (regular expression)
          </label>
        </fieldset>
        <fieldset>
          <legend>Stores</legend>
          {stores.loading && !stores.data ? <Loading what="stores" /> : null}
          <ErrorBox error={stores.error} />
          <div className="checks">
            {(stores.data?.data ?? []).map((s) => (
              <label key={s.id}>
                <input type="checkbox" checked={selected.includes(s.id)} onChange={() => toggleStore(s.id)} /> {s.name}
              </label>
            ))}
          </div>
          {stores.data && stores.data.data.length === 0 ? <p>No stores yet.</p> : null}
        </fieldset>
        {mode === 'search' ? (
          <div className="stack">
            <label htmlFor="pg-query">Query</label>
            <textarea id="pg-query" rows={2} value={query} onChange={(e) => setQuery(e.target.value)} required />
          </div>
        ) : (
          <div className="stack">
            <label htmlFor="pg-pattern">Pattern (RE2)</label>
            <input
              id="pg-pattern"
              className="mono"
              value={pattern}
              onChange={(e) => setPattern(e.target.value)}
              required
              maxLength={1024}
              spellCheck={false}
            />
            <label>
              <input type="checkbox" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.target.checked)} />{' '}
              Case-sensitive
            </label>
          </div>
        )}
        <div className="grid2">
          <div className="stack">
            <label htmlFor="pg-topk">top_k</label>
            <input
              id="pg-topk"
              type="number"
              min={1}
              max={1000}
              value={topK}
              onChange={(e) => setTopK(e.target.value)}
            />
          </div>
          {mode === 'search' ? (
            <div className="stack">
              <label htmlFor="pg-threshold">Score threshold (0–1)</label>
              <input
                id="pg-threshold"
                type="number"
                min={0}
                max={1}
                step={0.01}
                value={threshold}
                onChange={(e) => setThreshold(e.target.value)}
              />
            </div>
          ) : null}
        </div>
        <div className="stack">
          <label htmlFor="pg-filters">Filters (JSON, optional)</label>
          <textarea
            id="pg-filters"
            className="mono"
            rows={3}
            value={filters}
            onChange={(e) => setFilters(e.target.value)}
            placeholder='{"key": "author", "operator": "eq", "value": "ada"}'
            spellCheck={false}
            aria-describedby="pg-filters-help"
          />
          <p id="pg-filters-help" className="muted small">
            A condition, an <code>all</code>/<code>any</code>/<code>none</code> group or a list; unprefixed keys are
            file metadata, <code>generated_metadata.*</code> the chunk’s.
          </p>
        </div>
        {mode === 'search' ? (
          <fieldset className="row">
            <legend>Options</legend>
            <label>
              <input type="checkbox" checked={rerank} onChange={(e) => setRerank(e.target.checked)} /> Rerank
            </label>
            <label>
              <input type="checkbox" checked={agentic} onChange={(e) => setAgentic(e.target.checked)} /> Agentic
            </label>
            <label>
              <input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} /> Stream
            </label>
            <label>
              <input type="checkbox" checked={applyRules} onChange={(e) => setApplyRules(e.target.checked)} /> Apply
              search rules
            </label>
            <label>
              <input type="checkbox" checked={returnMetadata} onChange={(e) => setReturnMetadata(e.target.checked)} />{' '}
              Return metadata
            </label>
          </fieldset>
        ) : null}
        <div className="actions left">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Running…' : mode === 'search' ? 'Search' : 'Grep'}
          </button>
        </div>
      </form>
      <ErrorBox error={error} />
      {live.length ? (
        <section aria-labelledby="pg-live">
          <h2 id="pg-live">Stream</h2>
          <ol className="live mono small" aria-live="polite">
            {live.map((l, i) => (
              <li key={i}>{l}</li>
            ))}
          </ol>
        </section>
      ) : null}
      {outcome ? <Results outcome={outcome} storeNames={storeNames} /> : null}
      {lastBody ? (
        <details className="request">
          <summary>Request body</summary>
          <pre className="mono small">{json(lastBody)}</pre>
        </details>
      ) : null}
    </section>
  );
}

function summarize(data: unknown): string {
  const d = (data ?? {}) as Record<string, unknown>;
  const parts = ['round', 'query', 'queries', 'result_count', 'rounds_executed']
    .filter((k) => d[k] !== undefined)
    .map((k) => `${k}=${typeof d[k] === 'string' ? d[k] : JSON.stringify(d[k])}`);
  return parts.join(' ').slice(0, 200);
}

function Results({ outcome, storeNames }: { outcome: Outcome; storeNames: Map<string, string> }) {
  const max = Math.max(1, ...outcome.timing.map((t) => t.dur));
  return (
    <section aria-labelledby="pg-results">
      <h2 id="pg-results">
        {outcome.results.length} result{outcome.results.length === 1 ? '' : 's'}
      </h2>
      <section aria-labelledby="pg-timing" className="timing">
        <h3 id="pg-timing">Timing</h3>
        {outcome.timing.length ? (
          <table>
            <caption className="sr-only">Server-Timing breakdown in milliseconds</caption>
            <thead>
              <tr>
                <th scope="col">Step (Server-Timing)</th>
                <th scope="col">ms</th>
                <th scope="col">
                  <span className="sr-only">Share</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {outcome.timing.map((t) => (
                <tr key={t.name} data-step={t.name}>
                  <th scope="row">{t.name}</th>
                  <td className="num">{t.dur.toFixed(1)}</td>
                  <td className="bar-cell" aria-hidden="true">
                    <span className="bar" style={{ width: `${(100 * t.dur) / max}%` }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">
            {outcome.streamed
              ? 'A streamed answer sends its headers before the search runs, so it carries no Server-Timing.'
              : 'The server sent no Server-Timing for this request.'}
          </p>
        )}
        <p className="muted small">Round trip measured in the browser: {outcome.browserMs.toFixed(0)} ms.</p>
      </section>
      {outcome.results.length === 0 ? <p>Nothing matched.</p> : null}
      <ol className="results">
        {outcome.results.map((r, i) => {
          const { nodes } = highlight(chunkText(r), outcome.marker);
          return (
            <li key={`${r.file_id}:${r.chunk_index}:${i}`} className="result">
              <div className="result-head">
                <span className="rank">#{i + 1}</span>
                <span className="score" title="score">
                  score {r.score.toFixed(4)}
                </span>
                {r.store_id === 'mixedbread/web' ? (
                  <span className="filename">{r.filename}</span>
                ) : (
                  <Link className="filename" to={`/stores/${r.store_id}/files/${r.file_id}?chunk=${r.chunk_index}`}>
                    {r.filename}
                  </Link>
                )}
                <span className="muted small">
                  {storeNames.get(r.store_id) ?? r.store_id} · chunk {r.chunk_index}
                </span>
              </div>
              <p className="result-text">{nodes}</p>
              {r.metadata && Object.keys(r.metadata).length ? (
                <details>
                  <summary>File metadata</summary>
                  <pre className="mono small">{json(r.metadata)}</pre>
                </details>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

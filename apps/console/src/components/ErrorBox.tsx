import { ApiError } from '../api';

/** An error as the API worded it: its message, the code, and one line per invalid input of a 422. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error instanceof Error ? error : new Error(typeof error === 'string' ? error : JSON.stringify(error));
  const api = e instanceof ApiError ? e : null;
  return (
    <div className="error" role="alert">
      <strong>{title ?? 'Error'}</strong>
      {api && api.status ? (
        <span className="error-code"> ({[api.status, api.code].filter(Boolean).join(' ')})</span>
      ) : null}
      : {e.message}
      {api && api.details.length > 0 ? (
        <ul>
          {api.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

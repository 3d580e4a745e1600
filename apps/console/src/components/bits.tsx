import { useState } from 'react';

const STATUS_LABEL: Record<string, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
};

export function StatusBadge({ status }: { status: string | undefined }) {
  const s = status ?? 'pending';
  return <span className={`badge badge-${s}`}>{STATUS_LABEL[s] ?? s}</span>;
}

/** Copies `text` to the clipboard and says so (a live region announces it). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted">
        {state === 'copied'
          ? 'Copied to the clipboard.'
          : state === 'failed'
            ? 'Could not copy: select the text and copy it.'
            : ''}
      </span>
    </>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** Display helpers: sizes, times, ISO 8601 durations, decimal money strings. */

export function bytes(n: number | null | undefined): string {
  if (n == null) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

export function count(n: number | null | undefined): string {
  return n == null ? '—' : n.toLocaleString('en-US');
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export function shortTime(iso: string): string {
  const d = new Date(iso);
  return d.toLocaleString('en-GB', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function day(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', { month: 'short', day: 'numeric' });
}

/** `PT1M2.5S` → milliseconds (hours, minutes, seconds; null when unreadable). */
export function durationMs(iso: string | null | undefined): number | null {
  const m = /^P(?:\d+D)?T?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso ?? '');
  if (!m) return null;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

export function duration(iso: string | null | undefined): string {
  const ms = durationMs(iso);
  if (ms == null) return iso ?? '—';
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A decimal string (`"0.000123"`) as dollars with enough places to show small costs. */
export function money(dec: string | number | null | undefined): string {
  const n = Number(dec ?? 0);
  if (!Number.isFinite(n)) return String(dec);
  if (n === 0) return '$0';
  const places = Math.abs(n) >= 1 ? 2 : Math.min(8, Math.max(2, 1 - Math.floor(Math.log10(Math.abs(n))) + 2));
  return `$${n.toFixed(places)}`;
}

/** An axis label: at most two significant digits (`$0.00045`). */
export function moneyTick(n: number): string {
  return n === 0 ? '$0' : `$${Number(n.toPrecision(2))}`;
}

export function json(v: unknown): string {
  return v === undefined || v === null ? '' : JSON.stringify(v, null, 2);
}

/** Parses a JSON text field; empty = null. Throws a readable error. */
export function parseJsonField(label: string, text: string): unknown {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${label} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

/** ISO 8601 duration of a number of milliseconds (`PT1.234S`). */
export function isoDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = Number((s % 60).toFixed(3));
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${rest || (!h && !m) ? `${rest}S` : ''}`;
}

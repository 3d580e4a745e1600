import type { ReactNode } from 'react';

const STOP = new Set(
  'a an and are as at be by for from has have how i in is it of on or that the this to was what when where which who why will with'.split(
    ' ',
  ),
);

/** A crude English stem (drop -ing, -ed, -es, -s, -ly) so "freezing" also marks "freeze" and "frozen" is left alone. */
function stem(w: string): string {
  for (const suffix of ['ing', 'ed', 'es', 's', 'ly'])
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) return w.slice(0, -suffix.length);
  return w;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The words of a search query as one pattern marking them (and their inflections) in result text. */
export function queryTerms(query: string): RegExp | null {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2 && !STOP.has(w));
  const stems = [...new Set(words.map(stem))].sort((a, b) => b.length - a.length);
  if (!stems.length) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${stems.map(escape).join('|')})[\\p{L}\\p{N}]*`, 'giu');
}

/** A grep pattern as a JavaScript expression, when it is one (RE2 and JavaScript agree on common patterns). */
export function grepTerms(pattern: string, caseSensitive: boolean): RegExp | null {
  try {
    const re = new RegExp(pattern, caseSensitive ? 'gu' : 'giu');
    return re.test('') ? null : re; // a pattern matching the empty string would mark nothing useful
  } catch {
    return null;
  }
}

/**
 * `text` around its first match (up to `max` characters) with every match in <mark>. Returns the
 * nodes and how many matches were marked.
 */
export function highlight(text: string, re: RegExp | null, max = 700): { nodes: ReactNode[]; marks: number } {
  let start = 0;
  if (re) {
    re.lastIndex = 0;
    const first = re.exec(text);
    if (first && first.index > max / 2) start = Math.max(0, first.index - 120);
  }
  const slice = text.slice(start, start + max);
  const prefix = start > 0 ? '…' : '';
  const suffix = start + max < text.length ? '…' : '';
  if (!re) return { nodes: [prefix + slice + suffix], marks: 0 };
  const nodes: ReactNode[] = [prefix];
  let marks = 0;
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(slice); m; m = re.exec(slice)) {
    if (m[0] === '') {
      re.lastIndex++;
      continue;
    }
    nodes.push(slice.slice(last, m.index), <mark key={m.index}>{m[0]}</mark>);
    marks++;
    last = m.index + m[0].length;
  }
  nodes.push(slice.slice(last), suffix);
  return { nodes, marks };
}

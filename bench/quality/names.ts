import { createHash } from 'crypto';
import { Doc, Judged } from './metrics';

export const sha = (s: string) => createHash('sha1').update(s).digest('hex');

/** Orders `items` by the SHA-1 of their key: a fixed, deterministic shuffle. */
export const shuffled = <T>(items: T[], key: (t: T) => string): T[] =>
  items
    .map((t) => [sha(key(t)), t] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, t]) => t);

/** An identifier's parts: camelCase, PascalCase, snake_case, kebab-case, dotted and slashed paths, lower case. */
export function identifierParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((p) => p.toLowerCase())
    .filter(Boolean);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` without `names`: each name whole and each of its parts (with a plural or possessive
 * ending) removed as a word, case-insensitively, and the spaces tidied.
 */
export function withoutNames(text: string, names: string[]): string {
  const forms = new Set<string>();
  for (const n of names) {
    if (!n) continue;
    forms.add(n.toLowerCase());
    for (const p of identifierParts(n)) forms.add(p);
  }
  let out = text;
  for (const f of [...forms].sort((a, b) => b.length - a.length))
    out = out.replace(new RegExp(`(?<![\\w$])${escape(f)}(?:s|es|'s)?(?![\\w$])`, 'gi'), ' ');
  return out
    .replace(/\(\s*\)/g, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first sentence of a paragraph of prose (whitespace collapsed). */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(?=\s+[A-Z(`"']|$)/.exec(flat);
  return (m ? m[1] : flat).trim();
}

/** Words of a query, as a person counts them. */
export const wordCount = (s: string) => (s.match(/[\p{L}\p{N}]+/gu) ?? []).length;

/** A found pair of a known-item set: the document (uploaded as `filename`) and the one query it answers. */
export interface KnownItem {
  id: string;
  filename: string;
  body: string;
  query: string;
}

/**
 * A known-item set from what a builder found: items whose query or body another item shares are dropped
 * (neither could be judged), the rest shuffled by id and the first `max` kept, one document and one query each.
 */
export function knownItems(found: KnownItem[], max: number): { docs: Doc[]; queries: Judged[] } {
  const count = (key: (f: KnownItem) => string) => {
    const m = new Map<string, number>();
    for (const f of found) m.set(key(f), (m.get(key(f)) ?? 0) + 1);
    return m;
  };
  const byQuery = count((f) => f.query.toLowerCase());
  const byBody = count((f) => sha(f.body));
  const kept = shuffled(
    found.filter((f) => byQuery.get(f.query.toLowerCase()) === 1 && byBody.get(sha(f.body)) === 1),
    (f) => f.id,
  ).slice(0, max);
  return {
    docs: kept.map((f) => ({ id: f.id, filename: f.filename, body: `${f.body}\n` })),
    queries: kept.map((f) => ({ text: f.query, gains: new Map([[f.id, 1]]) })),
  };
}

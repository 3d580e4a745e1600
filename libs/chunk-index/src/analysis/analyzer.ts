import { stem } from 'porter2';

/**
 * The lexical engine's analyzer (it runs in the writer and, loaded by path, in the read worker, so it
 * imports nothing of the project's aliases): text is folded (NFKD, marks dropped, lower case), split
 * into Unicode words, and each word indexed as its Porter2 stem; a word that differs from its stem is
 * also indexed in its own form, as `=word`, so that a query can reward the exact form.
 */

/** Lucene's English stop words and the common function words of questions (NLTK's list). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each ' +
    'few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off ' +
    'on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves also may might must shall ' +
    'upon us yet etc'
  ).split(' '),
);

/** The prefix of a word's own (unstemmed) form in the index. */
export const EXACT = '=';

/** Longest word indexed (longer runs are cut: they are ids or base64, not words). */
const MAX_WORD = 64;

/** The folded words of a text, in order. */
export function words(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const out = folded.match(/[\p{L}\p{N}]+/gu) ?? [];
  for (let i = 0; i < out.length; i++) if (out[i].length > MAX_WORD) out[i] = out[i].slice(0, MAX_WORD);
  return out;
}

const stems = new Map<string, string>();
/** A folded word's index term: its Porter2 stem (Latin-letter words), else the word itself. */
export function stemOf(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = /^[a-z]+$/.test(word) ? stem(word) : word;
    if (stems.size > 200_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** One chunk's terms: per term its count in the body and in the headings; `length` counts its words but stop words. */
export interface AnalyzedChunk {
  terms: Map<string, { body: number; heading: number }>;
  length: number;
}

/**
 * Analyzes a chunk: Markdown heading lines (`# …`) of its text and its heading context (the headings
 * above it, from its generated metadata) are the heading field, the rest the body. Stop words are
 * indexed (a query of stop words alone searches with them) but not counted in `length` (a little
 * better on CISI and GCIDE, as Lucene's stop filter does), nor indexed in their own forms.
 */
export function analyzeChunk(text: string, headingContext: string[] = []): AnalyzedChunk {
  const terms = new Map<string, { body: number; heading: number }>();
  let length = 0;
  const add = (ws: string[], heading: boolean) => {
    for (const w of ws) {
      if (!STOP_WORDS.has(w)) length++;
      const s = stemOf(w);
      bump(terms, s, heading);
      if (s !== w && !STOP_WORDS.has(w)) bump(terms, EXACT + w, heading);
    }
  };
  for (const line of text.split('\n')) add(words(line), /^\s{0,3}#{1,6}\s/.test(line));
  for (const h of headingContext) add(words(h), true);
  return { terms, length };
}

function bump(terms: Map<string, { body: number; heading: number }>, term: string, heading: boolean) {
  let t = terms.get(term);
  if (!t) terms.set(term, (t = { body: 0, heading: 0 }));
  if (heading) t.heading++;
  else t.body++;
}

/** The heading context of a chunk's generated metadata (`heading_context`: strings or `{ text }`). */
export function headingContextOf(generatedMetadata: unknown): string[] {
  const hc = (generatedMetadata as { heading_context?: unknown } | null)?.heading_context;
  if (!Array.isArray(hc)) return [];
  return hc
    .map((h) =>
      typeof h === 'string'
        ? h
        : typeof (h as { text?: unknown })?.text === 'string'
          ? (h as { text: string }).text
          : '',
    )
    .filter(Boolean);
}

/**
 * A query's weighted terms: the stems of its words (English stop words dropped when `stopWords`,
 * unless nothing else is left), each weighted by its count in the query (a question that repeats a
 * word is about it: +0.07 nDCG@10 on CISI), and for each word that differs from its stem the exact
 * form weighted `exactBonus` per occurrence (none when 0).
 */
export function queryTerms(text: string, options: { stopWords: boolean; exactBonus: number }): Map<string, number> {
  let ws = words(text);
  if (options.stopWords) {
    const content = ws.filter((w) => !STOP_WORDS.has(w));
    if (content.length) ws = content;
  }
  const out = new Map<string, number>();
  for (const w of ws.slice(0, 64)) {
    const s = stemOf(w);
    out.set(s, (out.get(s) ?? 0) + 1);
    if (options.exactBonus > 0 && s !== w && !STOP_WORDS.has(w))
      out.set(EXACT + w, (out.get(EXACT + w) ?? 0) + options.exactBonus);
  }
  return out;
}

import { stem } from 'porter2';

/**
 * The lexical engine's analyzer (it runs in the writer and, loaded by path, in the read worker, so it
 * imports nothing of the project's aliases): text is folded (NFKD, marks dropped) and cut into tokens,
 * runs of letters and digits joined by one `.`, `_`, `-` or `/` (identifiers, paths, versions). A token is
 * split into its parts at those joiners and at case changes (camelCase, PascalCase, `HTMLParser` →
 * html, parser; letters and digits stay together), as Elasticsearch's word_delimiter_graph with
 * preserve_original: each part is a word, indexed as its Porter2 stem (a word that differs from its stem
 * is also indexed in its own form, as `=word`, so that a query can reward the exact form), and a token
 * of several parts is indexed whole as well (lower case: `getusername`, `foo_bar`, `1.2.3`,
 * `src/app.ts`). Queries are analyzed the same way.
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

/** Runs of letters and digits joined by one `.`, `_`, `-` or `/` (`a--b` and `a..b` are two tokens). */
const TOKEN = /[\p{L}\p{N}]+(?:[._/-][\p{L}\p{N}]+)*/gu;
/** Where a token splits: its joiners, and a case change (`fooBar`, `HTMLParser`, `v2Beta`; an acronym's plural, `IDs`, stays whole). */
const SPLIT = /[._/-]|(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll}{2})/u;
/** Whether a token splits at all (most words do not: they skip SPLIT). */
const SPLITS = /[._/-]|[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}{2}/u;

/** A token's words: `parts` in order, and the token `whole` (lower case) when it has more than one. */
export interface Token {
  parts: string[];
  whole: string | null;
}

const cut = (w: string) => (w.length > MAX_WORD ? w.slice(0, MAX_WORD) : w);

/**
 * Calls `part` with each word of a text in order (folded: marks dropped, lower case; `first`: it starts
 * a token) and `whole` after the parts of a token that has several. The analyzer's one tokenizer:
 * `tokens`, `words`, `analyzeChunk` and `queryTerms` all read text through it.
 */
function scan(text: string, part: (w: string, first: boolean) => void, whole: (w: string) => void): void {
  // eslint-disable-next-line no-control-regex
  const folded = /[^\u0000-\u007f]/.test(text) ? text.normalize('NFKD').replace(/\p{M}+/gu, '') : text;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(folded); m; m = TOKEN.exec(folded)) {
    const t = m[0];
    if (!SPLITS.test(t)) {
      part(cut(t.toLowerCase()), true);
      continue;
    }
    let n = 0;
    for (const p of t.split(SPLIT)) if (p) part(cut(p.toLowerCase()), n++ === 0);
    if (n > 1) whole(cut(t.toLowerCase()));
  }
}

/** The tokens of a text, in order. */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  scan(
    text,
    (w, first) => (first ? out.push({ parts: [w], whole: null }) : out[out.length - 1].parts.push(w)),
    (w) => (out[out.length - 1].whole = w),
  );
  return out;
}

/** The folded words of a text, in order: identifiers split into their parts. */
export function words(text: string): string[] {
  const out: string[] = [];
  scan(
    text,
    (w) => out.push(w),
    () => undefined,
  );
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
 * Analyzes a chunk (each token's parts, and its whole when it has several; `length` counts the parts):
 * Markdown heading lines (`# …`) of its text and its heading context (the headings
 * above it, from its generated metadata) are the heading field, the rest the body. Stop words are
 * indexed (a query of stop words alone searches with them) but not counted in `length` (a little
 * better on CISI and GCIDE, as Lucene's stop filter does), nor indexed in their own forms.
 */
export function analyzeChunk(text: string, headingContext: string[] = []): AnalyzedChunk {
  const terms = new Map<string, { body: number; heading: number }>();
  let length = 0;
  const word = (w: string, heading: boolean) => {
    const s = stemOf(w);
    bump(terms, s, heading);
    if (s !== w && !STOP_WORDS.has(w)) bump(terms, EXACT + w, heading);
  };
  const add = (text: string, heading: boolean) =>
    scan(
      text,
      (w) => {
        if (!STOP_WORDS.has(w)) length++;
        word(w, heading);
      },
      (w) => word(w, heading),
    );
  for (const line of text.split('\n')) add(line, /^\s{0,3}#{1,6}\s/.test(line));
  for (const h of headingContext) add(h, true);
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
 * A query's weighted terms: the stems of its words (each token's parts, and its whole when it has several) (English stop words dropped when `stopWords`,
 * unless nothing else is left), each weighted by its count in the query (a question that repeats a
 * word is about it: +0.07 nDCG@10 on CISI), and for each word that differs from its stem the exact
 * form weighted `exactBonus` per occurrence (none when 0).
 */
export function queryTerms(text: string, options: { stopWords: boolean; exactBonus: number }): Map<string, number> {
  let ws: string[] = [];
  scan(
    text,
    (w) => ws.push(w),
    (w) => ws.push(w),
  );
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

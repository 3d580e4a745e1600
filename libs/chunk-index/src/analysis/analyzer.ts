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
 * The fields beside a chunk's text (BM25F): its file's path, whose words (the extension aside) count
 * `path` times each, and, in a code chunk, the names it defines (`definedNames`), `symbols` times each.
 * They are counted into the heading field (so a term's count is body + heading weight × (headings +
 * path × path words + symbols × names)): the postings and their blocks' bounds hold them as they hold
 * headings, and the rankers need nothing else. Integers, as the postings store counts; chosen on the
 * tuning sets (docs/benchmarks.md); a change rebuilds the index (LEXICAL_SCHEMA_VERSION).
 */
export interface FieldWeights {
  path: number;
  symbols: number;
}
export const DEFAULT_FIELD_WEIGHTS: FieldWeights = { path: 1, symbols: 0 };

/**
 * Analyzes a chunk: Markdown heading lines (`# …`) of its text and its heading context (the headings
 * above it, from its generated metadata) are the heading field, the rest the body; with `fields`, the
 * path and defined names are counted in the heading field too (FieldWeights), and not in `length`. Stop
 * words are indexed (a query of stop words alone searches with them) but not counted in `length` (a
 * little better on CISI and GCIDE, as Lucene's stop filter does), nor indexed in their own forms.
 */
export function analyzeChunk(
  text: string,
  headingContext: string[] = [],
  fields: { path: string | null; code: boolean; weights: FieldWeights } | null = null,
): AnalyzedChunk {
  const terms = new Map<string, { body: number; heading: number }>();
  let length = 0;
  const add = (ws: string[], heading: number, counted = true) => {
    for (const w of ws) {
      if (counted && !STOP_WORDS.has(w)) length++;
      const s = stemOf(w);
      bump(terms, s, heading);
      if (s !== w && !STOP_WORDS.has(w)) bump(terms, EXACT + w, heading);
    }
  };
  for (const line of text.split('\n')) add(words(line), /^\s{0,3}#{1,6}\s/.test(line) ? 1 : 0);
  for (const h of headingContext) add(words(h), 1);
  if (fields?.path && fields.weights.path > 0) add(pathWords(fields.path), fields.weights.path, false);
  if (fields?.code && fields.weights.symbols > 0)
    for (const name of definedNames(text)) add(words(name), fields.weights.symbols, false);
  return { terms, length };
}

function bump(terms: Map<string, { body: number; heading: number }>, term: string, heading: number) {
  let t = terms.get(term);
  if (!t) terms.set(term, (t = { body: 0, heading: 0 }));
  if (heading) t.heading += heading;
  else t.body++;
}

/** The words of a file's path, its extension aside (`src/operators/mergeMap.ts` → src, operators, mergemap). */
export function pathWords(path: string): string[] {
  return words(path.replace(/\.[A-Za-z0-9]{1,8}$/, ''));
}

/**
 * The names a code chunk defines: the identifier after a definition keyword (function, class,
 * interface, type, enum, def, fn, func, struct, trait, …) or a `const`/`let`/`var` at the start of a
 * line, and the methods of a class body (an indented `name(…) {` line), in order, each once.
 */
export function definedNames(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(DEFINITION_NAME)) out.add(m[1] ?? m[2]);
  for (const m of code.matchAll(METHOD_NAME)) if (!NOT_METHODS.has(m[1])) out.add(m[1]);
  return [...out];
}
const DEFINITION_NAME =
  /\b(?:function\*?|class|interface|type|enum|namespace|module|def|fn|func|struct|trait|impl|object|record)\s+([A-Za-z_$][\w$]*)|^[ \t]*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)/gm;
const METHOD_NAME =
  /^[ \t]+(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*\*?([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>)?\([^\n]*\)[^\n;=]*\{\s*$/gm;
/** Keywords a method pattern would otherwise take for names (`if (…) {`). */
const NOT_METHODS: ReadonlySet<string> = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'function',
  'return',
  'with',
]);

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

import { stem } from 'porter2';
import { shortFormTable } from './short-forms';

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
/** Lucene's English stop words, the common function words of questions (NLTK's list) and the Latin abbreviations of prose. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each ' +
    'few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off ' +
    'on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves also may might must shall ' +
    'upon us yet etc e.g i.e'
  ).split(' '),
);

/** A token of single letters joined by dots (`e.g`, `u.s`, lower case): an abbreviation, one word. */
const ABBREVIATION = /^\p{L}(?:\.\p{L})+$/u;

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
 * Analyzes a chunk (each token's parts, and its whole when it has several; `length` counts the parts):
 * Markdown heading lines (`# …`) of its text and its heading context (the headings
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
  const word = (w: string, heading: number) => {
    const s = stemOf(w);
    bump(terms, s, heading);
    if (s !== w && !STOP_WORDS.has(w)) bump(terms, EXACT + w, heading);
  };
  const add = (text: string, heading: number, counted = true) =>
    scan(
      text,
      (w) => {
        if (counted && !STOP_WORDS.has(w)) length++;
        word(w, heading);
      },
      (w) => word(w, heading),
    );
  for (const line of text.split('\n')) add(line, /^\s{0,3}#{1,6}\s/.test(line) ? 1 : 0);
  for (const h of headingContext) add(h, 1);
  if (fields?.path && fields.weights.path > 0) for (const w of pathWords(fields.path)) word(w, fields.weights.path);
  if (fields?.code && fields.weights.symbols > 0)
    for (const name of definedNames(text)) add(name, fields.weights.symbols, false);
  return { terms, length };
}

function bump(terms: Map<string, { body: number; heading: number }>, term: string, heading: number) {
  let t = terms.get(term);
  if (!t) terms.set(term, (t = { body: 0, heading: 0 }));
  if (heading) t.heading += heading;
  else t.body++;
}

/** The words of a file's path, its extension aside, split as identifiers are (`src/operators/mergeMap.ts` → src, operators, merge, map). */
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
 * A query's weighted terms: the stems of its words (each token's parts, and its whole when it has several) (English stop words dropped when `stopWords`,
 * unless nothing else is left), each weighted by its count in the query (a question that repeats a
 * word is about it: +0.07 nDCG@10 on CISI), and for each word that differs from its stem the exact
 * form weighted `exactBonus` per occurrence (none when 0), and the other forms of a word's short-form
 * group (queryShortForms) weighted `shortFormWeight` each (none when 0). A dotted abbreviation
 * (single letters joined by dots: `e.g.`, `i.e.`, `U.S.`) is one word, its whole: its letters are not
 * words of the query.
 */
export function queryTerms(
  text: string,
  options: { stopWords: boolean; exactBonus: number; shortFormWeight?: number },
): Map<string, number> {
  const shortForm = options.shortFormWeight ?? 0;
  const out = new Map<string, number>();
  const add = (term: string, weight: number) => out.set(term, (out.get(term) ?? 0) + weight);
  for (const { w, whole } of contentTokens(text, options.stopWords)) {
    const s = stemOf(w);
    add(s, 1);
    if (options.exactBonus > 0 && s !== w && !STOP_WORDS.has(w)) add(EXACT + w, options.exactBonus);
    if (shortForm > 0 && !whole) for (const other of otherForms(s)) add(stemOf(other), shortForm);
  }
  return out;
}

/**
 * The other forms of a query's words' short-form groups (`str` for "string", `configuration` for
 * `config`: ./short-forms.ts), as written, each as often as its group's words occur: what a query
 * searches beside its own terms, weighted `shortFormWeight` (Elasticsearch's query takes them as a
 * clause of that boost).
 */
export function queryShortForms(text: string, stopWords: boolean): string[] {
  return contentTokens(text, stopWords).flatMap(({ w, whole }) => (whole ? [] : otherForms(stemOf(w))));
}

/** A query's first 64 words (stop words dropped when `stopWords`, unless nothing else is left), each marked when it is a token's whole. */
function contentTokens(text: string, stopWords: boolean): Array<{ w: string; whole: boolean }> {
  let ws = queryTokens(text, true);
  if (stopWords) {
    const content = ws.filter((t) => !STOP_WORDS.has(t.w));
    if (content.length) ws = content;
  }
  return ws.slice(0, 64);
}

const otherForms = (term: string) => (shortForms ??= shortFormTable(stemOf)).get(term) ?? [];
let shortForms: ReadonlyMap<string, string[]> | undefined;

/**
 * A query's words in order: each token's parts, and with `wholes` each token of several parts whole
 * too; an abbreviation (ABBREVIATION) is its whole alone.
 */
export function queryWords(text: string, wholes: boolean): string[] {
  return queryTokens(text, wholes).map((t) => t.w);
}

/** queryWords, each word marked when it is a token's whole (a dotted abbreviation is a word, not a whole). */
function queryTokens(text: string, wholes: boolean): Array<{ w: string; whole: boolean }> {
  const ws: Array<{ w: string; whole: boolean }> = [];
  let start = 0;
  scan(
    text,
    (w, first) => {
      if (first) start = ws.length;
      ws.push({ w, whole: false });
    },
    (w) => {
      if (ABBREVIATION.test(w)) ws.length = start;
      if (wholes || ws.length === start) ws.push({ w, whole: ws.length > start });
    },
  );
  return ws;
}

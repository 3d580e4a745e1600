import { stem as porter2 } from 'porter2';

/**
 * Plain-text helpers of the answering features (extractive answers, the deterministic planner): word
 * tokens, English stop words, a stemmer for matching word forms, sentence splitting.
 */

/** Function words that carry no topic (a compact English list). */
export const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down during each ' +
    'either else ever few for from further get gets got had has have having he her here hers herself him himself his how however i if in into is it its itself just like may me ' +
    'might more most much must my myself no nor not now of off on once only or other ought our ours ourselves out over own same shall she should since so some such than that the ' +
    'their theirs them themselves then there these they this those through thus to too under until up upon us very was we were what when where whether which while who whom whose ' +
    'why will with within without would yet you your yours yourself yourselves one two also use used using via per etc'
  ).split(/\s+/),
);

/** Question words and request verbs that say what kind of answer is wanted, not what it is about. */
const QUESTION_WORDS = new Set('what which who whom whose when where why how does do did is are was were can could should would will explain describe tell give list name find show'.split(' '));

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** Lower-cased word tokens (letters and digits; inner apostrophes and hyphens kept). */
export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/['’]s$/, '').replace(/^-+|-+$/g, '')).filter(Boolean);
}

/** The Snowball (Porter2) English stem of a lower-cased word: "retrieval", "retrieved" and "retrieving" meet at "retriev". */
export const stem = (word: string): string => porter2(word);

/** The topic words of a text: tokens that are not stop words, question words or single characters, stemmed. */
export function contentTerms(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !QUESTION_WORDS.has(w))
    .map(stem);
}

/** A text's topic words as written (unstemmed), for query variants a lexical engine can match. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !QUESTION_WORDS.has(w));
}

const ABBREVIATIONS = /\b(?:e\.g|i\.e|etc|vs|cf|al|fig|no|dr|mr|mrs|ms|prof|st|inc|ltd|approx)\.$/i;

/**
 * Sentences of a passage, with their offsets: split after `.`, `!` or `?` followed by space and an
 * upper-case letter, digit or quote, and at blank lines, list items and markdown headings; known
 * abbreviations do not end a sentence. Whitespace inside a sentence is collapsed.
 */
export function sentences(text: string): Array<{ text: string; start: number }> {
  const out: Array<{ text: string; start: number }> = [];
  const push = (from: number, to: number) => {
    const raw = text.slice(from, to);
    const lead = raw.length - raw.trimStart().length;
    const s = raw
      .trim()
      .replace(/^#{1,6}\s+|^[-*+]\s+|^\d+[.)]\s+/, '')
      .replace(/\s+/g, ' ');
    if (s) out.push({ text: s, start: from + lead });
  };
  let start = 0;
  const boundary = /([.!?]["'’”)\]]*)\s+(?=["'“([]?[\p{Lu}\p{N}])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)]|#{1,6})\s)/gu;
  let m: RegExpExecArray | null;
  while ((m = boundary.exec(text))) {
    const end = m.index + (m[1]?.length ?? 0);
    if (m[1] && ABBREVIATIONS.test(text.slice(Math.max(start, end - 8), end))) continue;
    push(start, end);
    start = m.index + m[0].length;
  }
  push(start, text.length);
  return out;
}

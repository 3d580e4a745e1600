import { stemOf, STOP_WORDS, words } from '@larder/chunk-index/analysis/analyzer';

/**
 * Plain-text helpers of the answering features (extractive answers, the deterministic planner), on the
 * index's analyzer (its folded words, stop words and Porter2 stems): topic words, sentence splitting.
 */

/** Question words and request verbs that say what kind of answer is wanted, not what it is about. */
const QUESTION_WORDS = new Set(
  'what which who whom whose when where why how does do did is are was were can could should would will explain describe tell give list name find show'.split(
    ' ',
  ),
);

/** The topic words of a text: tokens that are not stop words, question words or single characters, stemmed. */
export function contentTerms(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !QUESTION_WORDS.has(w))
    .map(stemOf);
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

import { stemOf, STOP_WORDS, words } from '@larder/chunk-index/analysis/analyzer';
import { contentTerms } from '../answering/text';

/**
 * Pseudo-relevance feedback (RM3's relevance model): the terms that characterise the best results of
 * a first search, for query variants that find what the question's own words missed. A term weighs
 * Σ over the top passages of its share of the passage's words × the passage's retrieval score, so a
 * term that several good passages use outweighs one that a single passage mentions. Stop words,
 * numbers, words under three letters and the question's own terms are left out. Each term is returned
 * in its most frequent written form, so a lexical engine can match it.
 */
export function feedbackTerms(question: string, top: Array<{ text: string; score: number }>, count: number): string[] {
  const asked = new Set(contentTerms(question));
  const weight = new Map<string, number>();
  const surface = new Map<string, Map<string, number>>();
  for (const { text, score } of top) {
    const tokens = words(text).filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !/^\d+$/.test(w));
    if (!tokens.length || score <= 0) continue;
    const tf = new Map<string, number>();
    for (const w of tokens) {
      const t = stemOf(w);
      tf.set(t, (tf.get(t) ?? 0) + 1);
      const forms = surface.get(t) ?? new Map<string, number>();
      forms.set(w, (forms.get(w) ?? 0) + 1);
      surface.set(t, forms);
    }
    for (const [t, f] of tf) if (!asked.has(t)) weight.set(t, (weight.get(t) ?? 0) + (f / tokens.length) * score);
  }
  return [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([t]) => [...surface.get(t)!.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0]);
}

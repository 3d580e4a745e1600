import { contentTerms, stem, STOP_WORDS, words } from '../answering/text';

/**
 * Pseudo-relevance feedback: the terms that characterise the best results of a first search, for
 * query variants that find what the question's own words missed (RM3-style: a term weighs its
 * frequency in each top passage, weighted by that passage's rank, against how common it is across
 * every passage retrieved so far). Terms of the question itself are left out. Each term is returned
 * in its most frequent written form, so a lexical engine can match it.
 */
export function feedbackTerms(question: string, top: string[], pool: string[], count: number): string[] {
  const asked = new Set(contentTerms(question));
  const df = new Map<string, number>();
  for (const text of pool) for (const t of new Set(contentTerms(text))) df.set(t, (df.get(t) ?? 0) + 1);
  const n = Math.max(pool.length, top.length);
  const weight = new Map<string, number>();
  const surface = new Map<string, Map<string, number>>();
  top.forEach((text, rank) => {
    const tokens = words(text).filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !/^\d+$/.test(w));
    if (!tokens.length) return;
    const tf = new Map<string, number>();
    for (const w of tokens) {
      const t = stem(w);
      tf.set(t, (tf.get(t) ?? 0) + 1);
      const forms = surface.get(t) ?? new Map<string, number>();
      forms.set(w, (forms.get(w) ?? 0) + 1);
      surface.set(t, forms);
    }
    const rankWeight = 1 / (1 + rank);
    for (const [t, f] of tf) {
      if (asked.has(t)) continue;
      const idf = Math.log((n + 1) / ((df.get(t) ?? 0) + 0.5));
      weight.set(t, (weight.get(t) ?? 0) + (f / tokens.length) * rankWeight * Math.max(idf, 0));
    }
  });
  return [...weight.entries()]
    .filter(([, w]) => w > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([t]) => [...surface.get(t)!.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0]);
}

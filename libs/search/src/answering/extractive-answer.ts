import { words } from '@larder/chunk-index/analysis/analyzer';
import { idf, OKAPI_BM25, tfNorm } from '@larder/chunk-index/analysis/bm25';
import { contentTerms, sentences } from './text';

/** The answer a question gets without a language model: the sentences that best answer it, cited. */
export interface ExtractiveAnswer {
  answer: string;
  /** Source indices the answer cites, in order of first citation. */
  cited: number[];
  /** Whether some passage answered (false: the answer says that none did). */
  found: boolean;
}

export interface ExtractiveOptions {
  cite: boolean;
  /** At most this many sentences (default 3). */
  maxSentences?: number;
  /** At most this many characters of sentence text (default 900). */
  maxChars?: number;
  /**
   * Semantic similarity of the question to each sentence (cosine, e.g. from the search embedder);
   * without it, sentences are scored on their words alone.
   */
  similarity?: (question: string, sentences: string[]) => Promise<number[] | null>;
}

export const NO_ANSWER = 'None of the retrieved passages answers this question.';

/** `<cite i="N"/>`: the citation marker (0-based index into `sources`; mgrep and the playground read this form). */
export const citeMarker = (i: number) => `<cite i="${i}"/>`;

/** Sentences considered per question (the top chunks' first sentences; bounds the work per request). */
const MAX_SENTENCES_SCORED = 400;
/** Sentences compared with the question by meaning (the answer's candidates). */
const SENTENCES_COMPARED = 8;

interface Candidate {
  source: number;
  position: number;
  text: string;
  terms: string[];
  score: number;
}

/**
 * Extractive question answering: every sentence of the retrieved passages is scored against the
 * question (the share of the question's information it covers, BM25 over the pool of sentences,
 * semantic similarity when available, and the retrieval rank of its passage); the best sentence, and
 * the next ones that score close to it, are the answer, each followed by its citation marker.
 */
export async function extractiveAnswer(
  question: string,
  sources: Array<{ text: string; score: number }>,
  options: ExtractiveOptions,
): Promise<ExtractiveAnswer> {
  const maxSentences = options.maxSentences ?? 3;
  const maxChars = options.maxChars ?? 900;
  let qTerms = [...new Set(contentTerms(question))];
  if (!qTerms.length) qTerms = [...new Set(words(question))];

  const pool: Candidate[] = [];
  sources.forEach((s, source) => {
    sentences(s.text).forEach((sentence, position) => {
      if (pool.length >= MAX_SENTENCES_SCORED) return;
      const terms = contentTerms(sentence.text);
      if (terms.length < 2 && words(sentence.text).length < 4) return;
      pool.push({ source, position, text: sentence.text, terms, score: 0 });
    });
  });
  if (!pool.length || !qTerms.length) return { answer: NO_ANSWER, cited: [], found: false };

  // inverse document frequency of the question's terms over the sentence pool
  const df = new Map<string, number>(qTerms.map((t) => [t, 0]));
  for (const c of pool) for (const t of new Set(c.terms)) if (df.has(t)) df.set(t, df.get(t)! + 1);
  const idfs = new Map(qTerms.map((t) => [t, idf(pool.length, df.get(t)!)]));
  const idfTotal = qTerms.reduce((a, t) => a + idfs.get(t)!, 0) || 1;
  const avgLen = pool.reduce((a, c) => a + c.terms.length, 0) / pool.length || 1;

  const lexical = pool.map((c) => {
    const tf = new Map<string, number>();
    for (const t of c.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    let bm25 = 0;
    let covered = 0;
    for (const t of qTerms) {
      const f = tf.get(t);
      if (!f) continue;
      covered += idfs.get(t)!;
      bm25 += idfs.get(t)! * tfNorm(f, 0, c.terms.length, avgLen, OKAPI_BM25);
    }
    return { coverage: covered / idfTotal, bm25 };
  });
  const maxBm25 = Math.max(...lexical.map((l) => l.bm25)) || 1;
  const maxSourceScore = Math.max(...sources.map((s) => s.score), 0) || 1;
  const lex = (i: number) => 0.5 * lexical[i].coverage + 0.5 * (lexical[i].bm25 / maxBm25);
  const prior = (c: Candidate) => Math.max(0, sources[c.source].score) / maxSourceScore;

  // Only the best few sentences by words (then, to fill up, the first sentences of the best passages)
  // are compared by meaning: embedding every sentence costs a model call each (~25 ms with the
  // bundled model), and an answer has at most `maxSentences` of them.
  const byWords = pool.map((c, i) => ({ c, i, s: lexical[i].coverage > 0 ? 0.75 * lex(i) + 0.25 * prior(c) : 0 }));
  const candidates = [
    ...byWords.filter((x) => x.s > 0).sort((a, b) => b.s - a.s || a.i - b.i),
    ...byWords.filter((x) => x.s === 0),
  ].slice(0, SENTENCES_COMPARED);
  const dense = options.similarity
    ? await options
        .similarity(
          question,
          candidates.map((x) => x.c.text),
        )
        .catch(() => null)
    : null;

  candidates.forEach(({ c, i }, k) => {
    const sim = dense ? Math.max(0, dense[k] ?? 0) : null;
    // a sentence sharing no word with the question answers it only when it is close in meaning
    if (lexical[i].coverage === 0 && (sim === null || sim < 0.5)) c.score = 0;
    else c.score = sim === null ? 0.75 * lex(i) + 0.25 * prior(c) : 0.55 * lex(i) + 0.25 * sim + 0.2 * prior(c);
  });

  const ranked = pool
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.source - b.source || a.position - b.position);
  if (!ranked.length) return { answer: NO_ANSWER, cited: [], found: false };

  const chosen: Candidate[] = [];
  let chars = 0;
  for (const c of ranked) {
    if (chosen.length >= maxSentences || c.score < 0.6 * ranked[0].score) break;
    if (chosen.length && chars + c.text.length > maxChars) continue;
    if (chosen.some((x) => overlap(x.terms, c.terms) > 0.8)) continue;
    chosen.push(c);
    chars += c.text.length;
  }
  const cited: number[] = [];
  const parts = chosen.map((c) => {
    if (!cited.includes(c.source)) cited.push(c.source);
    const text = /[.!?]["'’”)\]]*$/.test(c.text) ? c.text : `${c.text}.`;
    return options.cite ? `${text} ${citeMarker(c.source)}` : text;
  });
  return { answer: parts.join(' '), cited: options.cite ? cited : [], found: true };
}

/** Jaccard overlap of two term lists. */
function overlap(a: string[], b: string[]): number {
  const sa = new Set(a);
  const sb = new Set(b);
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter || 1);
}

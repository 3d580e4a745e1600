import MiniSearch from 'minisearch';
import { stem } from 'porter2';
import winkNLP, { ItemToken, ItsFunction } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { Doc, Judged } from './metrics';

/** A peer: indexes the documents' texts as uploaded, then ranks document ids for a query. */
export interface Peer {
  name: string;
  build(docs: Doc[]): void;
  search(text: string, k: number): string[];
}

/**
 * Plain BM25 over whole documents: lower case, split on anything that is not a letter or a digit,
 * each token's Porter2 (Snowball English) stem, every token kept (no stop words); k1 1.2, b 0.75,
 * Lucene's IDF log(1 + (N − df + 0.5) / (df + 0.5)); a query token counted as often as it occurs.
 */
export function plainBm25(k1 = 1.2, b = 0.75): Peer {
  const tokens = (s: string) => (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => stem(w));
  let ids: string[] = [];
  let lengths: number[] = [];
  let avg = 1;
  const postings = new Map<string, Array<[number, number]>>();
  return {
    name: 'plain BM25 (k1 1.2, b 0.75, Porter2)',
    build(docs) {
      ids = docs.map((d) => d.id);
      lengths = [];
      postings.clear();
      docs.forEach((d, i) => {
        const ts = tokens(d.body);
        lengths.push(ts.length);
        const tf = new Map<string, number>();
        for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
        for (const [t, n] of tf) {
          let p = postings.get(t);
          if (!p) postings.set(t, (p = []));
          p.push([i, n]);
        }
      });
      avg = lengths.reduce((a, x) => a + x, 0) / (lengths.length || 1) || 1;
    },
    search(text, k) {
      const scores = new Map<number, number>();
      for (const t of tokens(text)) {
        const p = postings.get(t);
        if (!p) continue;
        const idf = Math.log(1 + (ids.length - p.length + 0.5) / (p.length + 0.5));
        for (const [i, tf] of p)
          scores.set(i, (scores.get(i) ?? 0) + (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[i]) / avg)));
      }
      return [...scores.entries()]
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, k)
        .map(([i]) => ids[i]);
    },
  };
}

interface WinkBm25 {
  defineConfig(config: { fldWeights: Record<string, number> }): void;
  definePrepTasks(tasks: Array<(text: string) => string[]>): void;
  addDoc(doc: Record<string, string>, id: number): void;
  consolidate(fp?: number): void;
  search(text: string, limit?: number): Array<[number, number]>;
}

/**
 * wink-bm25-text-search with its defaults (BM25F, k1 1.2, b 0.75, one field) and the text preparation
 * its README gives: wink-nlp with wink-eng-lite-web-model, words only, stop words dropped, stems,
 * negated words marked `!`.
 */
export function winkBm25(): Peer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bm25 = require('wink-bm25-text-search') as () => WinkBm25;
  const nlp = winkNLP(model);
  // the token properties the README's preparation reads (wink-nlp's typings declare them as methods)
  const its = nlp.its as unknown as Record<'type' | 'stopWordFlag' | 'negationFlag' | 'stem', ItsFunction<unknown>>;
  const prep = (text: string) => {
    const out: string[] = [];
    nlp
      .readDoc(text)
      .tokens()
      .filter((t) => t.out(its.type) === 'word' && !t.out(its.stopWordFlag))
      .each((t: ItemToken) => out.push(`${t.out(its.negationFlag) ? '!' : ''}${String(t.out(its.stem))}`));
    return out;
  };
  let engine = bm25();
  let ids: string[] = [];
  return {
    name: 'wink-bm25-text-search (wink-nlp prep)',
    build(docs) {
      engine = bm25();
      ids = docs.map((d) => d.id);
      engine.defineConfig({ fldWeights: { body: 1 } });
      engine.definePrepTasks([prep]);
      docs.forEach((d, i) => engine.addDoc({ body: d.body }, i));
      engine.consolidate();
    },
    search(text, k) {
      return engine.search(text, k).map(([i]) => ids[i]);
    },
  };
}

/** MiniSearch with its defaults: its tokenizer (spaces and punctuation), lower case, no stemming, no prefix or fuzzy match, BM25+. */
export function miniSearch(): Peer {
  let ms = new MiniSearch<{ id: number; body: string }>({ fields: ['body'] });
  let ids: string[] = [];
  return {
    name: 'MiniSearch (defaults)',
    build(docs) {
      ms = new MiniSearch<{ id: number; body: string }>({ fields: ['body'] });
      ids = docs.map((d) => d.id);
      ms.addAll(docs.map((d, i) => ({ id: i, body: d.body })));
    },
    search(text, k) {
      return ms
        .search(text)
        .slice(0, k)
        .map((r) => ids[r.id as number]);
    },
  };
}

export const PEERS: Array<() => Peer> = [plainBm25, winkBm25, miniSearch];

/** Each peer's top 100 documents for each query. */
export function peerRankings(docs: Doc[], queries: Judged[]): Array<{ name: string; lists: string[][]; ms: number }> {
  return PEERS.map((make) => {
    const p = make();
    p.build(docs);
    const t = performance.now();
    const lists = queries.map((q) => p.search(q.text, 100));
    return { name: p.name, lists, ms: (performance.now() - t) / (queries.length || 1) };
  });
}

import { createHash } from 'crypto';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { gunzipSync } from 'zlib';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { contentWordCount, LexicalOptions, RM3_MIN_QUERY_WORDS } from '@larder/chunk-index/embedded/sqlite.options';
import { DEFAULT_FUSION as DEFAULT_SEARCH_FUSION } from '../apps/api/src/config/search';
import { chunkDocument, parseFile } from '@larder/ingestion';
import { ChunkHit } from '@larder/chunk-index';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { fuse, FusionMethod } from '@larder/search/ranking';
import { Embedder } from '@larder/ai';
import { embedDocuments, EmbeddingWindows } from './embedding-windows';

const GCIDE = '/usr/share/dictd/gcide.dict.dz';
const GCIDE_INDEX = '/usr/share/dictd/gcide.index';
const WORDNET = '/usr/share/wordnet';
const QUERIES = Number(process.env.BENCH_QUALITY_QUERIES ?? 300);
const DOCS = Number(process.env.BENCH_QUALITY_DOCS ?? 6000);

const sha = (s: string) => createHash('sha1').update(s).digest('hex');
const uuidOf = (s: string) => {
  const h = sha(s);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Installs Debian's dict-gcide and wordnet-base when they are missing (the collection's sources). */
export function ensureSources(): void {
  if (existsSync(GCIDE) && existsSync(join(WORDNET, 'data.noun'))) return;
  process.stdout.write('installing dict-gcide and wordnet-base from Debian…\n');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]) =>
    execFileSync(sudo.length ? 'sudo' : args[0], sudo.length ? args : args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'dict-gcide', 'wordnet-base']);
}

export interface Synset {
  id: string;
  lemmas: string[];
  gloss: string;
}

export function wordnet(): Synset[] {
  const out: Synset[] = [];
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of readFileSync(join(WORDNET, `data.${pos}`), 'latin1').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const bar = line.indexOf(' | ');
      if (bar < 0) continue;
      const f = line.slice(0, bar).split(' ');
      const n = parseInt(f[3], 16);
      const lemmas = Array.from({ length: n }, (_, i) => f[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
      out.push({ id: `${pos}:${f[0]}`, lemmas, gloss: line.slice(bar + 3).trim() });
    }
  }
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const b64 = (s: string) => [...s].reduce((n, c) => n * 64 + B64.indexOf(c), 0);

/** The first sense of each single-word GCIDE headword, as plain text. */
export function gcide(words: Set<string>): Map<string, string> {
  const dict = gunzipSync(readFileSync(GCIDE));
  const out = new Map<string, string>();
  for (const line of readFileSync(GCIDE_INDEX, 'utf8').split('\n')) {
    const [head, off, len] = line.split('\t');
    if (!head || !off || !len) continue;
    const word = head.toLowerCase();
    if (!/^[a-z]{4,}$/.test(word) || !words.has(word) || out.has(word)) continue;
    const entry = dict.subarray(b64(off), b64(off) + b64(len)).toString('utf8');
    const paragraphs = entry.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim());
    let def =
      paragraphs.find((p) => /^1\. /.test(p)) ??
      paragraphs.find((p, i) => i > 0 && !p.startsWith('[') && !p.includes('--') && /[a-z]/.test(p));
    if (!def) continue;
    def = def
      .replace(/^1\. /, '')
      .replace(/\[1913 Webster\]|\[PJC\]|\[Obs\.\]|\[R\.\]|\[Colloq\.\]/g, '')
      .replace(/[{}]/g, '')
      .replace(/\[[^\]]*\]/g, '')
      .trim();
    // mask the headword and its inflections
    def = def
      .replace(new RegExp(`\\b${word}(s|es|ed|d|ing|er|ers)?\\b`, 'gi'), '')
      .replace(/\s+/g, ' ')
      .trim();
    if (def.split(' ').length < 6 || def.length > 400) continue;
    out.set(word, def);
  }
  return out;
}

/** nDCG@10 with the judgments' gains as given (linear gain). */
export function ndcgAt10(ranked: string[], gains: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => (dcg += (gains.get(id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...gains.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}
const recallAt = (ranked: string[], gains: Map<string, number>, k: number) =>
  ranked.slice(0, k).filter((id) => gains.has(id)).length / gains.size;

export interface Doc {
  id: string;
  /** the file's bytes as uploaded, and its name (parsed and chunked as the API does) */
  filename: string;
  body: string;
}
export interface Judged {
  text: string;
  /** document id → gain */
  gains: Map<string, number>;
}
/** Mean nDCG@10 and recall@100, and each query's nDCG@10 (for the paired test). */
type Score = { ndcg: number; recall: number; perQuery?: number[] };

/**
 * Two-sided paired randomization test (Smucker, Allan & Carterette 2007) of mean(a) − mean(b) over
 * the same queries: each query's difference has its sign flipped at random `rounds` times (seeded, so
 * a run repeats); p is the share of rounds whose |mean| reaches the observed one.
 */
export function pairedRandomization(a: number[], b: number[], rounds = 10_000, seed = 7): { delta: number; p: number } {
  if (a.length !== b.length || !a.length) throw new Error('paired test: the same queries on both sides');
  const d = a.map((x, i) => x - b[i]);
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  let x = seed >>> 0;
  let reach = 0;
  for (let r = 0; r < rounds; r++) {
    let sum = 0;
    for (const v of d) {
      // xorshift32: one bit per query
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      sum += x & 1 ? v : -v;
    }
    if (Math.abs(sum) >= observed - 1e-12) reach++;
  }
  return { delta: d.reduce((s, v) => s + v, 0) / d.length, p: (reach + 1) / (rounds + 1) };
}

/**
 * The lexical variants measured: BM25 over every query word, the default (stop words dropped, the
 * default k1, b, heading weight and exact-form bonus), RM3 feedback variants, and with
 * BENCH_QUALITY_GRID (`k1,…|b,…|heading weight,…|exact bonus,…`) every combination of those
 * parameters (hybrid: the default fusion only).
 */
const RM3 = (process.env.BENCH_QUALITY_RM3 ?? '10,10,0.9;10,10,0.5;10,10,0.8;5,10,0.9')
  .split(';')
  .map((v) => v.split(',').map(Number));
const GRID = (process.env.BENCH_QUALITY_GRID ?? '').split('|').map((v) => v.split(',').filter(Boolean).map(Number));
const GRID_VARIANTS: Array<[string, Partial<LexicalOptions>]> =
  GRID.length === 4
    ? GRID[0].flatMap((k1) =>
        GRID[1].flatMap((b) =>
          GRID[2].flatMap((headingWeight) =>
            GRID[3].map((exactBonus): [string, Partial<LexicalOptions>] => [
              `k1 ${k1}, b ${b}, heading ${headingWeight}, exact ${exactBonus}`,
              { k1, b, headingWeight, exactBonus },
            ]),
          ),
        ),
      )
    : [];
const LEXICAL_VARIANTS: Array<[string, Partial<LexicalOptions>]> = [
  ['BM25, every query word', { stopWords: false, feedback: null }],
  ['+ stop words', { stopWords: true, feedback: null }],
  [`default: + stop words + RM3 from ${RM3_MIN_QUERY_WORDS} words`, {}],
  ...RM3.map(([docs, terms, originalWeight]): [string, Partial<LexicalOptions>] => [
    `+ stop words + RM3 (${docs} docs, ${terms} terms, λ ${originalWeight})`,
    { stopWords: true, feedback: { docs, terms, originalWeight }, feedbackMinWords: 0 },
  ]),
  ...GRID_VARIANTS,
];

/** The embedder's vectors, kept on disk between runs (BENCH_QUALITY_CACHE, default in the temp folder: the model is the slow part). */
const CACHE = process.env.BENCH_QUALITY_CACHE ?? join(tmpdir(), 'larder-bench-quality-vectors');
async function embedCached(
  embedder: UseLiteEmbedder,
  texts: string[],
  kind: 'document' | 'query',
): Promise<Float32Array[]> {
  const fileOf = (t: string) => join(CACHE, 'text', `${sha([embedder.model, kind, t].join('\u0000'))}.f32`);
  const read = (f: string) => {
    const buf = readFileSync(f);
    return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4).slice();
  };
  mkdirSync(join(CACHE, 'text'), { recursive: true });
  const file = join(CACHE, `${sha([embedder.model, kind, ...texts].join('\u0000'))}.f32`);
  if (existsSync(file)) {
    // a batch cached whole (earlier runs): its texts are cached one by one as well
    const all = read(file);
    const dims = all.length / texts.length;
    const out = texts.map((_, i) => all.slice(i * dims, (i + 1) * dims));
    texts.forEach((t, i) => existsSync(fileOf(t)) || writeFileSync(fileOf(t), Buffer.from(out[i].buffer)));
    return out;
  }
  const out: Array<Float32Array | null> = texts.map((t) => (existsSync(fileOf(t)) ? read(fileOf(t)) : null));
  const missing = [...new Set(texts.filter((_, i) => !out[i]))];
  if (missing.length) {
    const vectors = await embedder.embed(missing, kind);
    const got = new Map(missing.map((t, i) => [t, vectors[i]]));
    missing.forEach((t, i) =>
      writeFileSync(fileOf(t), Buffer.from(vectors[i].buffer, vectors[i].byteOffset, vectors[i].byteLength)),
    );
    texts.forEach((t, i) => (out[i] ??= got.get(t)!));
  }
  return out as Float32Array[];
}
/** The embedder through the vector cache (for `embedDocuments`). */
const cachedEmbedder = (e: UseLiteEmbedder): Embedder => ({
  model: e.model,
  dimensions: e.dimensions,
  batchSize: e.batchSize,
  maxInputTokens: e.maxInputTokens,
  embed: (texts, kind) => embedCached(e, texts, kind),
  close: async () => undefined,
});
const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.9];
/**
 * Dense variants (BENCH_QUALITY_WINDOWS, `words,overlap;…`, `whole` for one vector of the whole text):
 * each chunk's embedding input embedded in windows and mean-pooled, ranked by an exact cosine scan here,
 * and fused with the default lexical variant.
 */
/**
 * Dense pseudo-relevance feedback (Rocchio on vectors; BENCH_QUALITY_PRF, `source,k,α;…`, source `lex` or
 * `hyb`): the query vector moved towards the mean of the first pass's k best chunks' vectors
 * (q' = α q̂ + (1 − α) mean v̂), searched again and fused with the default lexical list.
 */
const PRF_VARIANTS = (process.env.BENCH_QUALITY_PRF ?? '')
  .split(';')
  .filter(Boolean)
  .map((v) => v.split(','))
  .map(([source, k, alpha]) => ({ source: source as 'lex' | 'hyb', k: Number(k), alpha: Number(alpha) }));
const WINDOW_VARIANTS: Array<EmbeddingWindows | null> = (process.env.BENCH_QUALITY_WINDOWS ?? '')
  .split(';')
  .filter(Boolean)
  .map((v) => (v === 'whole' ? null : { words: Number(v.split(',')[0]), overlap: Number(v.split(',')[1] ?? 0) }));

/** Fusion by z-scores: each list's scores standardised over the list, a chunk missing from a list given that list's lowest; convex combination. */
export function fuseZ(lexical: ChunkHit[], dense: ChunkHit[], lexicalWeight: number): ChunkHit[] {
  const z = (list: ChunkHit[]) => {
    const s = list.map((c) => c.score);
    const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
    const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / (s.length || 1)) || 1;
    return {
      of: new Map(list.map((c) => [`${c.fileId}\u0000${c.chunkIndex}`, (c.score - mean) / sd])),
      min: s.length ? (Math.min(...s) - mean) / sd : 0,
    };
  };
  const zl = z(lexical);
  const zd = z(dense);
  const all = new Map<string, ChunkHit>();
  for (const c of [...lexical, ...dense]) all.set(`${c.fileId}\u0000${c.chunkIndex}`, c);
  return [...all.entries()]
    .map(([k, c]) => ({
      ...c,
      score: lexicalWeight * (zl.of.get(k) ?? zl.min) + (1 - lexicalWeight) * (zd.of.get(k) ?? zd.min),
    }))
    .sort((a, b) => b.score - a.score);
}

/**
 * Indexes `docs` through the API's path (parseFile, chunkDocument `fast`, the default embedder on each
 * chunk's embedding input) into an embedded chunk index, runs `queries` with every lexical variant,
 * dense, and the fusions, and prints nDCG@10 and recall@100 (documents ranked by their best chunk).
 */
async function evaluate(
  title: string,
  docs: Doc[],
  queries: Judged[],
  embedder: UseLiteEmbedder,
): Promise<Map<string, Score>> {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-quality-'));
  const path = join(dir, 'chunks.sqlite');
  const index = new SqliteChunkIndex(path, { readWorker: false });
  const results = new Map<string, Score>();
  try {
    await index.setup();
    const store = uuidOf('bench-store');
    const docOf = new Map<string, string>();
    const e0 = performance.now();
    let seq = 0n;
    let chunkCount = 0;
    const allChunks: Array<{ fileId: string; chunkIndex: number; embedText: string }> = [];
    const vectorOf = new Map<string, Float32Array>();
    for (let i = 0; i < docs.length; i += 64) {
      const batch = await Promise.all(
        docs.slice(i, i + 64).map(async (d) => ({
          d,
          chunks: chunkDocument(
            await parseFile(
              Buffer.from(d.body),
              d.filename,
              d.filename.endsWith('.md') ? 'text/markdown' : 'text/plain',
            ),
            'fast',
            d.filename,
          ),
        })),
      );
      const texts = batch.flatMap((b) => b.chunks.map((c) => c.embedText));
      const vectors = await embedCached(embedder, texts, 'document');
      batch.forEach(({ d, chunks }) =>
        chunks.forEach((c) =>
          allChunks.push({ fileId: uuidOf(d.id), chunkIndex: c.chunkIndex, embedText: c.embedText }),
        ),
      );
      let v = 0;
      {
        let w = 0;
        for (const { d, chunks } of batch)
          for (const c of chunks) vectorOf.set(`${uuidOf(d.id)}\u0000${c.chunkIndex}`, vectors[w++]);
      }
      await index.write(
        batch.flatMap(({ d, chunks }) => {
          const fileId = uuidOf(d.id);
          docOf.set(fileId, d.id);
          chunkCount += chunks.length;
          return [
            {
              op: 'putFile' as const,
              file: {
                storeId: store,
                fileId,
                organizationId: store,
                filename: d.filename,
                externalId: null,
                metadata: null,
                generation: 1,
              },
            },
            {
              op: 'setChunks' as const,
              storeId: store,
              fileId,
              generation: 1,
              chunks: chunks.map((c) => ({
                chunkIndex: c.chunkIndex,
                type: 'text' as const,
                text: c.text,
                offset: c.offset,
                mimeType: 'text/plain',
                generatedMetadata: c.generatedMetadata,
              })),
            },
            {
              op: 'setVectors' as const,
              storeId: store,
              fileId,
              generation: 1,
              model: embedder.model,
              vectors: chunks.map(() => vectors[v++]),
            },
          ];
        }),
        { projection: 'bench', version: 1, position: { commit: ++seq, prepare: seq } },
      );
    }
    process.stdout.write(
      `${title}: ${docs.length} documents, ${chunkCount} chunks, ${queries.length} queries; indexed with ${embedder.model} (vectors cached in ${CACHE}) in ${((performance.now() - e0) / 1000).toFixed(1)} s\n\n`,
    );

    const docsOf = (list: ChunkHit[]) => [...new Set(list.map((c) => docOf.get(c.fileId)!))];
    /** nDCG@10 of `lists` (or of `top10`: what the API fuses for top_k 10), recall@100 of `lists` */
    const score = (lists: ChunkHit[][], top10 = lists): Score => {
      let n = 0;
      let r = 0;
      const perQuery: number[] = [];
      lists.forEach((list, i) => {
        const q = ndcgAt10(docsOf(top10[i]), queries[i].gains);
        perQuery.push(q);
        n += q;
        r += recallAt(docsOf(list), queries[i].gains, 100);
      });
      return { ndcg: n / lists.length, recall: r / lists.length, perQuery };
    };
    // the API fuses max(top_k × 5, 50) candidates of each list: 50 for top_k 10, 100 here for recall@100
    const hybrid = (lists: ChunkHit[][], method: FusionMethod, lexicalWeight: number) =>
      score(
        lists.map((l, i) => fuse(l, dense[i], { method, lexicalWeight })),
        lists.map((l, i) => fuse(l.slice(0, 50), dense[i].slice(0, 50), { method, lexicalWeight })),
      );
    const dense: ChunkHit[][] = [];
    for (const q of queries) {
      const [v] = await embedCached(embedder, [q.text], 'query');
      dense.push(await index.searchDense({ storeIds: [store], vector: v, topK: 100, model: embedder.model }));
    }
    const lexical = new Map<string, ChunkHit[][]>();
    const rows: Array<[string, Score, string]> = [];
    for (const [name, options] of LEXICAL_VARIANTS) {
      const variant = new SqliteChunkIndex(path, { readWorker: false, lexical: options });
      await variant.setup();
      const lists: ChunkHit[][] = [];
      const times: number[] = [];
      for (const q of queries) {
        const t = performance.now();
        lists.push(await variant.searchLexical({ storeIds: [store], text: q.text, topK: 100 }));
        times.push(performance.now() - t);
        // the latency of a top-10 query, as the API asks it for top_k 10 without fusion
        const t10 = performance.now();
        await variant.searchLexical({ storeIds: [store], text: q.text, topK: 10 });
        times[times.length - 1] = performance.now() - t10;
      }
      await variant.close();
      times.sort((a, b) => a - b);
      lexical.set(name, lists);
      const s = score(lists);
      results.set(`lexical: ${name}`, s);
      rows.push([
        `lexical: ${name}`,
        s,
        `${times[Math.floor(times.length / 2)].toFixed(2)} / ${times[Math.min(times.length - 1, Math.floor(times.length * 0.99))].toFixed(2)}`,
      ]);
    }
    const d = score(dense);
    results.set('dense', d);
    rows.push([`dense (${embedder.model})`, d, '']);
    const hybridRows: Array<[string, Score, string]> = [];
    for (const [name] of GRID_VARIANTS) {
      const [method, weight] = [DEFAULT_SEARCH_FUSION.method, DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite']];
      const s = hybrid(lexical.get(name)!, method, weight);
      results.set(`hybrid ${method} ${weight}: ${name}`, s);
      hybridRows.push([`${method} ${weight}: ${name}`, s, '']);
    }
    for (const [name] of LEXICAL_VARIANTS.slice(0, LEXICAL_VARIANTS.length - GRID_VARIANTS.length)) {
      const lists = lexical.get(name)!;
      for (const w of WEIGHTS) {
        const s = hybrid(lists, 'relative', w);
        results.set(`hybrid relative ${w}: ${name}`, s);
        hybridRows.push([`relative ${w}: ${name}`, s, '']);
      }
      const s = hybrid(lists, 'rrf', 0.5);
      results.set(`hybrid rrf 0.5: ${name}`, s);
      hybridRows.push([`rrf (k 60) 0.5: ${name}`, s, '']);
      for (const w of [0.7, 0.8, 0.9]) {
        const sw = hybrid(lists, 'rrf', w);
        results.set(`hybrid rrf ${w}: ${name}`, sw);
        hybridRows.push([`rrf (k 60) ${w}: ${name}`, sw, '']);
      }
    }
    // RM3 only for queries of at least N words that are not stop words (the rest without feedback)
    const contentWords = queries.map((q) => contentWordCount(q.text));
    for (const [name] of LEXICAL_VARIANTS.filter(([, o]) => o.feedback && !o.feedbackMinWords)) {
      for (const n of [6, 10, 14, 18, 24, 30]) {
        const lists = lexical.get(name)!.map((l, i) => (contentWords[i] >= n ? l : lexical.get(PREVIOUS_VARIANT)![i]));
        const sl = score(lists);
        results.set(`lexical: ${name} from ${n} words`, sl);
        rows.push([`lexical: ${name} from ${n} words`, sl, '']);
        const s = hybrid(lists, DEFAULT_SEARCH_FUSION.method, DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite']);
        results.set(`hybrid default: ${name} from ${n} words`, s);
        hybridRows.push([
          `default: ${name} from ${n} words (${contentWords.filter((c) => c >= n).length} queries)`,
          s,
          '',
        ]);
      }
    }
    // fusion by z-scores, with the default lexical variant
    for (const w of WEIGHTS) {
      const lists = lexical.get(DEFAULT_VARIANT)!;
      const s = score(
        lists.map((l, i) => fuseZ(l, dense[i], w)),
        lists.map((l, i) => fuseZ(l.slice(0, 50), dense[i].slice(0, 50), w)),
      );
      results.set(`hybrid zscore ${w}: ${DEFAULT_VARIANT}`, s);
      hybridRows.push([`zscore ${w}: ${DEFAULT_VARIANT}`, s, '']);
    }
    // dense pseudo-relevance feedback: the query vector moved towards the first pass's best chunks
    for (const prf of PRF_VARIANTS) {
      const lists = lexical.get(DEFAULT_VARIANT)!;
      const w0 = DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite'];
      const unit = (v: Float32Array) => {
        const n = Math.sqrt(v.reduce((a, b) => a + b * b, 0)) || 1;
        return v.map((x) => x / n);
      };
      const dv: ChunkHit[][] = [];
      for (let i = 0; i < queries.length; i++) {
        const first =
          prf.source === 'lex'
            ? lists[i]
            : fuse(lists[i].slice(0, 50), dense[i].slice(0, 50), { method: 'relative', lexicalWeight: w0 });
        const [qv] = await embedCached(embedder, [queries[i].text], 'query');
        const top = first.slice(0, prf.k).map((c) => vectorOf.get(`${c.fileId}\u0000${c.chunkIndex}`)!);
        const q = unit(qv).map((x) => x * prf.alpha);
        for (const v of top) {
          const u = unit(v);
          for (let k = 0; k < q.length; k++) q[k] += ((1 - prf.alpha) * u[k]) / top.length;
        }
        dv.push(await index.searchDense({ storeIds: [store], vector: unit(q), topK: 100, model: embedder.model }));
      }
      const name = `dense PRF ${prf.source} k ${prf.k} α ${prf.alpha}`;
      const sd = score(dv);
      results.set(name, sd);
      rows.push([name, sd, '']);
      for (const w of WEIGHTS) {
        const s = score(
          lists.map((l, i) => fuse(l, dv[i], { method: 'relative', lexicalWeight: w })),
          lists.map((l, i) => fuse(l.slice(0, 50), dv[i].slice(0, 50), { method: 'relative', lexicalWeight: w })),
        );
        results.set(`hybrid relative ${w} ${name}: ${DEFAULT_VARIANT}`, s);
        hybridRows.push([`relative ${w}, ${name}: default`, s, '']);
      }
    }
    // dense variants: windows, mean-pooled; exact cosine scan here
    for (const win of WINDOW_VARIANTS) {
      const name = win ? `windows ${win.words}/${win.overlap}` : 'whole text';
      const vecs = await embedDocuments(
        cachedEmbedder(embedder),
        allChunks.map((c) => c.embedText),
        win,
      );
      const dv: ChunkHit[][] = [];
      for (const q of queries) {
        const [qv] = await embedCached(embedder, [q.text], 'query');
        const qn = Math.sqrt(qv.reduce((a, b) => a + b * b, 0)) || 1;
        dv.push(
          allChunks
            .map((c, i) => {
              let dot = 0;
              let n = 0;
              for (let k = 0; k < qv.length; k++) {
                dot += qv[k] * vecs[i][k];
                n += vecs[i][k] * vecs[i][k];
              }
              return {
                storeId: store,
                fileId: c.fileId,
                chunkIndex: c.chunkIndex,
                score: dot / (qn * (Math.sqrt(n) || 1)),
              };
            })
            .sort((a, b) => b.score - a.score)
            .slice(0, 100),
        );
      }
      const sd = score(dv);
      results.set(`dense ${name}`, sd);
      rows.push([`dense ${name}`, sd, '']);
      const lists = lexical.get(DEFAULT_VARIANT)!;
      for (const w of WEIGHTS) {
        for (const method of ['relative', 'rrf'] as const) {
          const s = score(
            lists.map((l, i) => fuse(l, dv[i], { method, lexicalWeight: w })),
            lists.map((l, i) => fuse(l.slice(0, 50), dv[i].slice(0, 50), { method, lexicalWeight: w })),
          );
          results.set(`hybrid ${method} ${w} dense ${name}: ${DEFAULT_VARIANT}`, s);
          hybridRows.push([`${method} ${w}, dense ${name}: ${DEFAULT_VARIANT}`, s, '']);
        }
        const s = score(
          lists.map((l, i) => fuseZ(l, dv[i], w)),
          lists.map((l, i) => fuseZ(l.slice(0, 50), dv[i].slice(0, 50), w)),
        );
        results.set(`hybrid zscore ${w} dense ${name}: ${DEFAULT_VARIANT}`, s);
        hybridRows.push([`zscore ${w}, dense ${name}: ${DEFAULT_VARIANT}`, s, '']);
      }
    }
    table(`${title}: retrieval`, rows, 'top-10 ms p50 / p99');
    table(`${title}: hybrid (lexical weight: lexical variant)`, hybridRows);
    return results;
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(title: string, rs: Array<[string, Score, string]>, extra?: string): void {
  const w = Math.max(...rs.map((r) => r[0].length), title.length);
  process.stdout.write(
    `| ${title.padEnd(w)} | nDCG@10 | recall@100 |${extra ? ` ${extra} |` : ''}\n|${'-'.repeat(w + 2)}|--------:|-----------:|${extra ? `${'-'.repeat(extra.length + 1)}:|` : ''}\n`,
  );
  for (const [k, v, x] of rs)
    process.stdout.write(
      `| ${k.padEnd(w)} | ${v.ndcg.toFixed(3).padStart(7)} | ${v.recall.toFixed(3).padStart(10)} |${extra ? ` ${x.padStart(extra.length)} |` : ''}\n`,
    );
  process.stdout.write('\n');
}

/** A BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels/test.tsv), each document uploaded as `<id>.md`: `# title` then the text. */
export function beir(dir: string): { docs: Doc[]; queries: Judged[] } {
  const lines = (f: string) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
  const docs = lines('corpus.jsonl').map((l) => {
    const d = JSON.parse(l) as { _id: string; title?: string; text: string };
    return {
      id: d._id,
      filename: `${d._id}.md`,
      body: `${d.title?.trim() ? `# ${d.title.trim()}\n\n` : ''}${d.text}\n`,
    };
  });
  const gains = new Map<string, Map<string, number>>();
  for (const l of lines('qrels/test.tsv').slice(1)) {
    const [q, d, g] = l.split('\t');
    if (Number(g) > 0) gains.set(q, (gains.get(q) ?? new Map<string, number>()).set(d, Number(g)));
  }
  const queries = lines('queries.jsonl')
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => gains.has(q._id))
    .map((q) => ({ text: q.text, gains: gains.get(q._id)! }));
  return { docs, queries };
}

export const DATA = process.env.BENCH_QUALITY_DATA ?? join(__dirname, '..', '..', '..', 'shared', 'data');

export async function searchQualityBench(): Promise<void> {
  const embedder = new UseLiteEmbedder();
  const summary: Array<[string, Map<string, Score>]> = [];
  try {
    for (const [name, label] of [
      ['cisi', 'CISI (tuning)'],
      ['cranfield', 'Cranfield (HELD OUT: reported, never tuned on)'],
    ]) {
      if (process.env.BENCH_QUALITY_BEIR === '0') break;
      if (name === 'cranfield' && process.env.BENCH_QUALITY_HELD_OUT === '0') continue; // while tuning
      const dir = join(DATA, name);
      if (!existsSync(join(dir, 'corpus.jsonl'))) {
        process.stdout.write(
          `\n(${dir} not found: set BENCH_QUALITY_DATA to the folder holding cisi/ and cranfield/)\n`,
        );
        continue;
      }
      const { docs, queries } = beir(dir);
      process.stdout.write(`\n## Search quality: ${label}\n`);
      summary.push([label, await evaluate(label, docs, queries, embedder)]);
    }
    if (process.env.BENCH_QUALITY_GCIDE !== '0') summary.push(['GCIDE → WordNet', await gcideBench(embedder)]);
  } finally {
    await embedder.close();
  }
  const bm25 = `lexical: ${LEXICAL_VARIANTS[0][0]}`;
  const pick = (m: Map<string, Score>, k: string) => m.get(k) ?? { ndcg: NaN, recall: NaN };
  const fusion = `${DEFAULT_SEARCH_FUSION.method} ${DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite']}`;
  process.stdout.write(
    `## Before / after (nDCG@10 / recall@100)\n\n| collection | BM25, every query word | lexical before (${PREVIOUS_VARIANT}) | lexical now (${DEFAULT_VARIANT}) | dense | hybrid before (relative 0.8, ${PREVIOUS_VARIANT}) | hybrid now (${fusion}, ${DEFAULT_VARIANT}) |\n|---|---|---|---|---|---|---|\n`,
  );
  const f = (s: Score) => `${s.ndcg.toFixed(3)} / ${s.recall.toFixed(3)}`;
  for (const [label, m] of summary) {
    process.stdout.write(
      `| ${label} | ${f(pick(m, bm25))} | ${f(pick(m, `lexical: ${PREVIOUS_VARIANT}`))} | ${f(pick(m, `lexical: ${DEFAULT_VARIANT}`))} | ${f(pick(m, 'dense'))} | ${f(pick(m, `hybrid relative 0.8: ${PREVIOUS_VARIANT}`))} | ${f(pick(m, `hybrid ${fusion}: ${DEFAULT_VARIANT}`))} |\n`,
    );
  }
  // is the default's gain over plain BM25 more than chance? (per-query nDCG@10, paired)
  process.stdout.write(
    `\n## The default against BM25 over every query word (nDCG@10 per query, paired randomization test, 10,000 rounds, two-sided)\n\n| collection | queries | lexical now − BM25 (p) | hybrid now − BM25 (p) | queries better / worse (hybrid) |\n|---|---:|---|---|---|\n`,
  );
  for (const [label, m] of summary) {
    const base = m.get(bm25)?.perQuery;
    const lex = m.get(`lexical: ${DEFAULT_VARIANT}`)?.perQuery;
    const hyb = m.get(`hybrid ${fusion}: ${DEFAULT_VARIANT}`)?.perQuery;
    if (!base || !lex || !hyb) continue;
    const t = (a: number[]) => {
      const { delta, p } = pairedRandomization(a, base);
      return `${delta >= 0 ? '+' : ''}${delta.toFixed(3)} (p ${p < 0.001 ? '< 0.001' : p.toFixed(3)})`;
    };
    const better = hyb.filter((x, i) => x > base[i] + 1e-12).length;
    const worse = hyb.filter((x, i) => x < base[i] - 1e-12).length;
    process.stdout.write(`| ${label} | ${base.length} | ${t(lex)} | ${t(hyb)} | ${better} / ${worse} |\n`);
  }
  process.stdout.write('\n');
}

/** The lexical variant that is the default (chosen on CISI and GCIDE), and the one before it (no feedback). */
const DEFAULT_VARIANT = `default: + stop words + RM3 from ${RM3_MIN_QUERY_WORDS} words`;
const PREVIOUS_VARIANT = '+ stop words';

async function gcideBench(embedder: UseLiteEmbedder): Promise<Map<string, Score>> {
  ensureSources();
  const t0 = performance.now();
  const synsets = wordnet();
  const byLemma = new Map<string, Synset[]>();
  for (const s of synsets) for (const l of s.lemmas) byLemma.set(l, [...(byLemma.get(l) ?? []), s]);
  const defs = gcide(new Set([...byLemma.keys()].filter((w) => /^[a-z]{4,}$/.test(w))));
  // Queries: a deterministic sample of headwords with 1–8 synsets (relevance judgments).
  const candidates = [...defs.keys()]
    .filter((w) => byLemma.get(w)!.length <= 8)
    .sort((a, b) => (sha(a) < sha(b) ? -1 : 1));
  const queries = candidates
    .slice(0, QUERIES)
    .map((w) => ({ text: defs.get(w)!, gains: new Map(byLemma.get(w)!.map((s) => [s.id, 1])) }));
  // Documents: every relevant synset plus a deterministic sample of the others, up to DOCS.
  const docIds = new Set(queries.flatMap((q) => [...q.gains.keys()]));
  for (const s of [...synsets].sort((a, b) => (sha(a.id) < sha(b.id) ? -1 : 1))) {
    if (docIds.size >= DOCS) break;
    docIds.add(s.id);
  }
  const docs = synsets.filter((s) => docIds.has(s.id));
  process.stdout.write(
    `\n## Search quality: GCIDE definitions → WordNet glosses\n${queries.length} queries (GCIDE first senses, headword masked), ${docs.length} documents (WordNet 3.0 glosses: all ${[...new Set(queries.flatMap((q) => [...q.gains.keys()]))].length} relevant synsets plus a deterministic sample of the other ${synsets.length}), relevant = synsets whose lemmas contain the headword; built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return evaluate(
    'GCIDE → WordNet',
    docs.map((d) => ({ id: d.id, filename: `${d.id.replace(':', '-')}.txt`, body: d.gloss })),
    queries,
    embedder,
  );
}

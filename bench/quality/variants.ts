import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { LexicalOptions, RM3_MIN_QUERY_WORDS } from '@larder/chunk-index/embedded/sqlite.options';
import { ChunkHit } from '@larder/chunk-index';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { Embedder } from '@larder/ai';
import { EmbeddingWindows } from '../embedding-windows';
import { sha } from './names';

/**
 * The lexical variants measured: BM25 over every query word, the default (stop words dropped, the
 * default k1, b, heading weight and exact-form bonus), RM3 feedback variants, and with
 * BENCH_QUALITY_GRID (`k1,…|b,…|heading weight,…|exact bonus,…`) every combination of those
 * parameters, and with BENCH_QUALITY_CODE_B and BENCH_QUALITY_MULTI_B the default with other b for code
 * stores and for stores of multi-chunk files (hybrid: the default fusion only). BENCH_QUALITY_RM3 empty: no RM3 variants but the default's.
 */
const RM3 = (process.env.BENCH_QUALITY_RM3 ?? '10,10,0.9;10,10,0.5;10,10,0.8;5,10,0.9')
  .split(';')
  .filter(Boolean)
  .map((v) => v.split(',').map(Number));
const GRID = (process.env.BENCH_QUALITY_GRID ?? '').split('|').map((v) => v.split(',').filter(Boolean).map(Number));
/** BENCH_QUALITY_CODE_B (`b,…`): the default with another b for code stores (CODE_B), beside the default. */
const CODE_BS = (process.env.BENCH_QUALITY_CODE_B ?? '0.4,0.6,0.9').split(',').filter(Boolean).map(Number);
/** BENCH_QUALITY_MULTI_B (`b,…`): the default with another b for stores of multi-chunk files (MULTI_CHUNK_B), beside the default. */
const MULTI_BS = (process.env.BENCH_QUALITY_MULTI_B ?? '0.4,0.9').split(',').filter(Boolean).map(Number);
/** BENCH_QUALITY_SHORT_FORMS (`w,…`): the default with a query word's short-form group's other forms weighted w. */
const SHORT_FORMS = (process.env.BENCH_QUALITY_SHORT_FORMS ?? '').split(',').filter(Boolean).map(Number);
export const GRID_VARIANTS: Array<[string, Partial<LexicalOptions>]> = [
  ...SHORT_FORMS.map((shortFormWeight): [string, Partial<LexicalOptions>] => [
    `default, short forms ${shortFormWeight}`,
    { shortFormWeight },
  ]),
  ...CODE_BS.map((codeB): [string, Partial<LexicalOptions>] => [`default, code b ${codeB}`, { codeB }]),
  ...MULTI_BS.map((multiChunkB): [string, Partial<LexicalOptions>] => [
    `default, multi-chunk b ${multiChunkB}`,
    { multiChunkB },
  ]),
  ...(GRID.length === 4
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
    : []),
];
export const LEXICAL_VARIANTS: Array<[string, Partial<LexicalOptions>]> = [
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
export const CACHE = process.env.BENCH_QUALITY_CACHE ?? join(tmpdir(), 'larder-bench-quality-vectors');
export async function embedCached(
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
export const cachedEmbedder = (e: UseLiteEmbedder): Embedder => ({
  model: e.model,
  dimensions: e.dimensions,
  batchSize: e.batchSize,
  maxInputTokens: e.maxInputTokens,
  embed: (texts, kind) => embedCached(e, texts, kind),
  close: async () => undefined,
});
export const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.9];
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
export const PRF_VARIANTS = (process.env.BENCH_QUALITY_PRF ?? '')
  .split(';')
  .filter(Boolean)
  .map((v) => v.split(','))
  .map(([source, k, alpha]) => ({ source: source as 'lex' | 'hyb', k: Number(k), alpha: Number(alpha) }));
export const WINDOW_VARIANTS: Array<EmbeddingWindows | null> = (process.env.BENCH_QUALITY_WINDOWS ?? '')
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
/** The lexical variant that is the default (chosen on the tuning sets), and the one before it (no feedback). */
export const DEFAULT_VARIANT = `default: + stop words + RM3 from ${RM3_MIN_QUERY_WORDS} words`;
export const PREVIOUS_VARIANT = '+ stop words';

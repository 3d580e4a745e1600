import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { contentWordCount } from '@larder/chunk-index/embedded/sqlite.options';
import { DEFAULT_FUSION as DEFAULT_SEARCH_FUSION } from '../../apps/api/src/config/search';
import { chunkDoc, docOps } from './chunked';
import { ChunkHit, ChunkIndexOp } from '@larder/chunk-index';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { fuse, FusionMethod, LEAD_EVIDENCE } from '@larder/search/ranking';
import { embedDocuments } from '../embedding-windows';
import { Doc, Judged, pairedCell, Score, scoreRankings, table } from './metrics';
import { DOC_EVIDENCE, FieldVariants, withDocumentEvidence } from './fields-fusion';
import { sha } from './names';
import { windowRows } from './window';
import {
  CACHE,
  cachedEmbedder,
  DEFAULT_VARIANT,
  embedCached,
  fuseZ,
  GRID_VARIANTS,
  LEXICAL_VARIANTS,
  PREVIOUS_VARIANT,
  PRF_VARIANTS,
  WEIGHTS,
  WINDOW_VARIANTS,
} from './variants';

/** BENCH_QUALITY_LEAD (`share,…`): the default fusion with other shares of the lead evidence (0, without, is always measured). */
const LEAD_SHARES = (process.env.BENCH_QUALITY_LEAD ?? '0.25,0.75').split(',').filter(Boolean).map(Number);

const uuidOf = (s: string) => {
  const h = sha(s);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/**
 * Indexes `docs` through the API's path (parseFile, chunkDocument `fast`, the default embedder on each
 * chunk's embedding input) into an embedded chunk index, runs `queries` with every lexical variant,
 * dense, and the fusions, and prints nDCG@10 and recall@100 (documents ranked by their best chunk).
 */
export async function evaluate(
  title: string,
  docs: Doc[],
  queries: Judged[],
  embedder: UseLiteEmbedder,
): Promise<Map<string, Score>> {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-quality-'));
  const path = join(dir, 'chunks.sqlite');
  const index = new SqliteChunkIndex(path, { readWorker: false });
  const results = new Map<string, Score>();
  const fieldVariants = new FieldVariants();
  try {
    await index.setup();
    await fieldVariants.setup();
    const store = uuidOf('bench-store');
    const docOf = new Map<string, string>();
    const e0 = performance.now();
    let seq = 0n;
    let chunkCount = 0;
    const allChunks: Array<{ fileId: string; chunkIndex: number; embedText: string }> = [];
    const vectorOf = new Map<string, Float32Array>();
    for (let i = 0; i < docs.length; i += 64) {
      const batch = await Promise.all(docs.slice(i, i + 64).map(async (d) => ({ d, chunks: await chunkDoc(d) })));
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
      const ops: ChunkIndexOp[] = batch.flatMap(({ d, chunks }) => {
        const fileId = uuidOf(d.id);
        docOf.set(fileId, d.id);
        chunkCount += chunks.length;
        return [
          ...docOps({ storeId: store, organizationId: store, fileId, filename: d.filename }, chunks),
          {
            op: 'setVectors' as const,
            storeId: store,
            fileId,
            generation: 1,
            model: embedder.model,
            vectors: chunks.map(() => vectors[v++]),
          },
        ];
      });
      await index.write(ops, { projection: 'bench', version: 1, position: { commit: ++seq, prepare: seq } });
      await fieldVariants.write(ops);
    }
    process.stdout.write(
      `${title}: ${docs.length} documents, ${chunkCount} chunks, ${queries.length} queries; indexed with ${embedder.model} (vectors cached in ${CACHE}) in ${((performance.now() - e0) / 1000).toFixed(1)} s\n\n`,
    );

    const docsOf = (list: ChunkHit[]) => [...new Set(list.map((c) => docOf.get(c.fileId)!))];
    /** nDCG@10 of `lists` (or of `top10`: what the API fuses for top_k 10), recall@100 of `lists` */
    const score = (lists: ChunkHit[][], top10 = lists): Score =>
      scoreRankings(queries, lists.map(docsOf), top10.map(docsOf));
    // the API fuses max(top_k × 5, 50) candidates of each list: 50 for top_k 10, 100 here for recall@100
    // with the store search's lead evidence (LEAD_EVIDENCE; `lead` 0: without)
    const hybrid = (lists: ChunkHit[][], method: FusionMethod, lexicalWeight: number, lead = LEAD_EVIDENCE) =>
      score(
        lists.map((l, i) => fuse(l, dense[i], { method, lexicalWeight, leadEvidence: lead })),
        lists.map((l, i) => fuse(l.slice(0, 50), dense[i].slice(0, 50), { method, lexicalWeight, leadEvidence: lead })),
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
    const [method, weight] = [
      DEFAULT_SEARCH_FUSION.method['use-lite'],
      DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite'],
    ];
    const byDefault = hybrid(lexical.get(DEFAULT_VARIANT)!, method, weight).perQuery!;
    for (const [name] of GRID_VARIANTS) {
      const s = hybrid(lexical.get(name)!, method, weight);
      results.set(`hybrid ${method} ${weight}: ${name}`, s);
      // this variant against the default, paired over the queries
      hybridRows.push([`${method} ${weight}: ${name}`, s, pairedCell(s.perQuery!, byDefault)]);
    }
    for (const [name] of LEXICAL_VARIANTS.slice(0, LEXICAL_VARIANTS.length - GRID_VARIANTS.length)) {
      const lists = lexical.get(name)!;
      for (const w of WEIGHTS) {
        const s = hybrid(lists, 'relative', w);
        results.set(`hybrid relative ${w}: ${name}`, s);
        hybridRows.push([`relative ${w}: ${name}`, s, '']);
        const sa = hybrid(lists, 'adaptive', w);
        results.set(`hybrid adaptive ${w}: ${name}`, sa);
        hybridRows.push([`adaptive ${w}: ${name}`, sa, '']);
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
    // the default without the lead evidence, and with other shares of it
    for (const lead of [0, ...LEAD_SHARES]) {
      const s = hybrid(
        lexical.get(DEFAULT_VARIANT)!,
        DEFAULT_SEARCH_FUSION.method['use-lite'],
        DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite'],
        lead,
      );
      results.set(`hybrid default, lead evidence ${lead}`, s);
      hybridRows.push([`default, lead evidence ${lead}`, s, '']);
    }
    // RM3 only for queries of at least N words that are not stop words (the rest without feedback)
    const contentWords = queries.map((q) => contentWordCount(q.text));
    for (const [name] of LEXICAL_VARIANTS.filter(([, o]) => o.feedback && !o.feedbackMinWords)) {
      for (const n of [6, 10, 14, 18, 24, 30]) {
        const lists = lexical.get(name)!.map((l, i) => (contentWords[i] >= n ? l : lexical.get(PREVIOUS_VARIANT)![i]));
        const sl = score(lists);
        results.set(`lexical: ${name} from ${n} words`, sl);
        rows.push([`lexical: ${name} from ${n} words`, sl, '']);
        const s = hybrid(
          lists,
          DEFAULT_SEARCH_FUSION.method['use-lite'],
          DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite'],
        );
        results.set(`hybrid default: ${name} from ${n} words`, s);
        hybridRows.push([
          `default: ${name} from ${n} words (${contentWords.filter((c) => c >= n).length} queries)`,
          s,
          '',
        ]);
      }
    }
    // the default lexical query on indexes with other field weights, alone and fused as the default
    const [defaultMethod, defaultWeight] = [
      DEFAULT_SEARCH_FUSION.method['use-lite'],
      DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite'],
    ];
    for (const [name, lists] of await fieldVariants.lists(
      store,
      queries.map((q) => q.text),
    )) {
      const sl = score(lists);
      results.set(`lexical: default, ${name}`, sl);
      rows.push([`lexical: default, ${name}`, sl, '']);
      const s = hybrid(lists, defaultMethod, defaultWeight);
      results.set(`hybrid default, ${name}`, s);
      hybridRows.push([`default, ${name}`, s, '']);
    }
    // document evidence: the default fusion's chunk scores interpolated with their file's
    for (const lambda of DOC_EVIDENCE) {
      const lists = lexical.get(DEFAULT_VARIANT)!;
      const options = { method: defaultMethod, lexicalWeight: defaultWeight };
      const s = score(
        lists.map((l, i) => withDocumentEvidence(l, dense[i], options, lambda)),
        lists.map((l, i) => withDocumentEvidence(l.slice(0, 50), dense[i].slice(0, 50), options, lambda)),
      );
      results.set(`hybrid default + document evidence λ ${lambda}`, s);
      hybridRows.push([`default + document evidence λ ${lambda}`, s, '']);
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
    const windows = await windowRows(
      index,
      store,
      queries,
      embedder,
      { method: defaultMethod, lexicalWeight: defaultWeight, leadEvidence: LEAD_EVIDENCE },
      (answers) => score(answers),
    );
    for (const [name, s] of windows) results.set(`window: ${name}`, s);
    table(`${title}: retrieval`, rows, 'top-10 ms p50 / p99');
    table(`${title}: hybrid (lexical weight: lexical variant)`, hybridRows, 'this − default (p)');
    table(`${title}: candidate window (the answer's first top_k, default fusion)`, windows);
    return results;
  } finally {
    await fieldVariants.close();
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

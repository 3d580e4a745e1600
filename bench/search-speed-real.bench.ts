import { createHash } from 'crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { ChunkIndexOp } from '@larder/chunk-index';
import { DEFAULT_IVF_OPTIONS } from '@larder/chunk-index/embedded/ivf.options';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { ensureSources, gcide, wordnet } from './quality/gcide.set';

/**
 * Dense recall@10 and latency on vectors of real text: WordNet 3.0 glosses embedded by the bundled
 * model (USE-lite, 512-d) as the chunks, GCIDE definitions (other text, other authors) as the queries.
 * The synthetic clustered vectors of the speed bench are easy for IVF; real sentence embeddings are not
 * clustered that neatly, so this is the number that says what a user gets.
 */
const DEFAULT_IVF_PROBES = DEFAULT_IVF_OPTIONS.ivfProbes;
const DOCS = Number(process.env.BENCH_REAL_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.BENCH_REAL_QUERIES ?? 200);
/** BENCH_REAL_LISTS: the IVF's lists, the probes then as given (default DEFAULT_IVF_OPTIONS.ivfLists, 0: by the vectors, 256 at 100k): recall and speed of finer or coarser lists. */
const LISTS = Number(process.env.BENCH_REAL_LISTS ?? DEFAULT_IVF_OPTIONS.ivfLists);
const PROBES = (process.env.BENCH_REAL_PROBES ?? `4,${DEFAULT_IVF_PROBES},16,32`).split(',').map(Number);
/** Vectors kept on disk between runs in blocks of BLOCK texts, so an interrupted build resumes. */
const CACHE = process.env.BENCH_REAL_CACHE ?? join(tmpdir(), 'larder-bench-real-vectors');
const BLOCK = 1000;
const DIMS = 512;

const sha = (s: string) => createHash('sha1').update(s).digest('hex');

/** The chunks (a deterministic sample of WordNet glosses) and the queries (GCIDE first senses). */
export function realTexts(): { docs: string[]; queries: string[] } {
  ensureSources();
  const synsets = wordnet().sort((a, b) => (sha(a.id) < sha(b.id) ? -1 : 1));
  const docs = synsets.slice(0, DOCS).map((s) => s.gloss);
  const defs = gcide(new Set(synsets.flatMap((s) => s.lemmas).filter((w) => /^[a-z]{4,}$/.test(w))));
  const queries = [...defs.keys()]
    .sort((a, b) => (sha(a) < sha(b) ? -1 : 1))
    .slice(0, QUERIES)
    .map((w) => defs.get(w)!);
  return { docs, queries };
}

const blockFile = (model: string, texts: string[]) => join(CACHE, `${sha([model, ...texts].join('\u0000'))}.f32`);

/**
 * The vectors of `texts`, block by block from the cache; missing blocks are embedded (and cached)
 * unless `embedMissing` is false, in which case the answer stops at the first missing block.
 */
async function vectorsOf(
  embedder: UseLiteEmbedder,
  texts: string[],
  embedMissing: boolean,
  progress?: (done: number) => void,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  mkdirSync(CACHE, { recursive: true });
  for (let i = 0; i < texts.length; i += BLOCK) {
    const block = texts.slice(i, i + BLOCK);
    const file = blockFile(embedder.model, block);
    if (existsSync(file)) {
      const buf = readFileSync(file);
      const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      for (let j = 0; j < block.length; j++) out.push(all.subarray(j * DIMS, (j + 1) * DIMS));
    } else if (!embedMissing) {
      break;
    } else {
      const vectors = await embedder.embed(block, 'document');
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));
      renameSync(tmp, file);
      out.push(...vectors);
    }
    progress?.(out.length);
  }
  return out;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export async function searchSpeedRealBench(): Promise<void> {
  const t0 = performance.now();
  const { docs, queries } = realTexts();
  const embedder = new UseLiteEmbedder();
  let docVectors: Float32Array[];
  let queryVectors: Float32Array[];
  try {
    queryVectors = await vectorsOf(embedder, queries, true);
    // BENCH_REAL_EMBED_ONLY=1: build the cache and stop; BENCH_REAL_EMBED_MISSING=0: use what is cached
    const only = process.env.BENCH_REAL_EMBED_ONLY === '1';
    let last = 0;
    docVectors = await vectorsOf(embedder, docs, process.env.BENCH_REAL_EMBED_MISSING !== '0', (n) => {
      if (only && n - last >= 5000) {
        last = n;
        process.stdout.write(
          `${n} of ${docs.length} glosses embedded (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
        );
      }
    });
    if (only) {
      process.stdout.write(
        `cache complete: ${docVectors.length} glosses, ${queryVectors.length} queries in ${CACHE}\n`,
      );
      return;
    }
  } finally {
    await embedder.close();
  }
  const n = docVectors.length;
  process.stdout.write(
    `\n## Search speed on real text: ${n.toLocaleString('en')} WordNet glosses${n < docs.length ? ` (of ${docs.length.toLocaleString('en')} asked: only these are embedded in the cache)` : ''}, ${queryVectors.length} GCIDE definitions as queries, ${embedder.model} (${DIMS}-d, vectors cached in ${CACHE})\n`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-real-'));
  const path = join(dir, 'chunks.sqlite');
  const storeId = '00000000-0000-4000-8000-00000000beef';
  try {
    const writer = new SqliteChunkIndex(path, { readWorker: false, ivfLists: LISTS });
    await writer.setup();
    const f0 = performance.now();
    const perFile = 100;
    let seq = 0n;
    for (let f = 0; f * perFile < n; f++) {
      const fileId = `00000000-0000-4000-8000-${f.toString(16).padStart(12, '0')}`;
      const slice = docs.slice(f * perFile, Math.min(n, (f + 1) * perFile));
      const ops: ChunkIndexOp[] = [
        {
          op: 'putFile',
          file: {
            storeId,
            fileId,
            organizationId: storeId,
            filename: `glosses-${f}.txt`,
            externalId: null,
            metadata: null,
            generation: 1,
          },
        },
        {
          op: 'setChunks',
          storeId,
          fileId,
          generation: 1,
          chunks: slice.map((text, i) => ({
            chunkIndex: i,
            type: 'text' as const,
            text,
            offset: 0,
            mimeType: 'text/plain',
            generatedMetadata: { type: 'text' },
          })),
        },
        {
          op: 'setVectors',
          storeId,
          fileId,
          generation: 1,
          model: embedder.model,
          vectors: slice.map((_, i) => docVectors[f * perFile + i]),
        },
      ];
      await writer.write(ops, { projection: 'bench', version: 1, position: { commit: ++seq, prepare: seq } });
    }
    await writer.close();
    process.stdout.write(`index filled in ${((performance.now() - f0) / 1000).toFixed(1)} s\n`);

    // exact top-10 of every query (float32 dot products over every vector)
    const exact = queryVectors.map((q) => {
      const top: Array<[number, number]> = [];
      for (let i = 0; i < n; i++) {
        const v = docVectors[i];
        let s = 0;
        for (let d = 0; d < DIMS; d++) s += v[d] * q[d];
        if (top.length < 10 || s > top[top.length - 1][0]) {
          top.push([s, i]);
          top.sort((a, b) => b[0] - a[0]);
          if (top.length > 10) top.pop();
        }
      }
      return new Set(top.map(([, i]) => `${Math.floor(i / perFile)}:${i % perFile}`));
    });
    const rows: string[] = [];
    // each probe count, then the exact scan (what a store under the IVF threshold gets) for reference (BENCH_REAL_EXACT=0: not)
    for (const probes of process.env.BENCH_REAL_EXACT === '0' ? PROBES : [...PROBES, 0]) {
      const index = new SqliteChunkIndex(path, {
        readWorker: false,
        ivfLists: LISTS,
        ...(probes ? { ivfProbes: probes } : { ivfMinVectors: Number.MAX_SAFE_INTEGER }),
      });
      await index.setup();
      let hit = 0;
      const ms: number[] = [];
      await index.searchDense({ storeIds: [storeId], vector: queryVectors[0], topK: 10, model: embedder.model });
      for (let qi = 0; qi < queryVectors.length; qi++) {
        const s = performance.now();
        const got = await index.searchDense({
          storeIds: [storeId],
          vector: queryVectors[qi],
          topK: 10,
          model: embedder.model,
        });
        ms.push(performance.now() - s);
        hit += got.filter((g) => exact[qi].has(`${parseInt(g.fileId.slice(24), 16)}:${g.chunkIndex}`)).length;
      }
      await index.close();
      rows.push(
        `| ${(probes ? `${probes}${probes === DEFAULT_IVF_PROBES ? ' (default)' : ''}` : 'exact scan').padEnd(13)} | ${(hit / (queryVectors.length * 10)).toFixed(3).padStart(9)} | ${pct(ms, 50).toFixed(2).padStart(6)} | ${pct(ms, 99).toFixed(2).padStart(6)} |`,
      );
    }
    process.stdout.write(
      `\nIVF of ${LISTS || 'auto (256 at 100k)'} lists:\n\n| probes        | recall@10 | p50 ms | p99 ms |\n|---------------|----------:|-------:|-------:|\n${rows.join('\n')}\n\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

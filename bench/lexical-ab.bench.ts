import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { queryTerms } from '@larder/chunk-index/analysis/analyzer';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { DEFAULT_LEXICAL_OPTIONS, LexicalOptions } from '@larder/chunk-index/embedded/sqlite.options';
import { chunkDoc, docOps } from './quality/chunked';
import { codeSet } from './quality/code.set';
import { manpagesSet } from './quality/manpages.set';
import { QualitySet } from './quality/metrics';
import { pythonSet } from './quality/python.set';

/** BENCH_LEXICAL_AB: the variant's lexical options as JSON, over the default (short forms off by default). */
const VARIANT = JSON.parse(process.env.BENCH_LEXICAL_AB ?? '{"shortFormWeight":0}') as Partial<LexicalOptions>;
/** BENCH_LEXICAL_AB_SET: the quality set whose documents and queries are used (python, code or manpages). */
const SET = process.env.BENCH_LEXICAL_AB_SET ?? 'python';
/** BENCH_LEXICAL_AB_ROUNDS: rounds over the queries, the first one not timed (warm-up). */
const ROUNDS = Number(process.env.BENCH_LEXICAL_AB_ROUNDS ?? 3);

const SETS: Record<string, () => Promise<QualitySet | null> | QualitySet> = {
  python: pythonSet,
  code: codeSet,
  manpages: manpagesSet,
};

/**
 * The lexical top-10's latency with the default options against a variant (BENCH_LEXICAL_AB) on a real
 * store: a quality set's documents indexed through the API's parse and chunk path (no vectors), its
 * queries asked of both in turns (the order swapped each round), each index reading in its own worker
 * thread as the server's does.
 */
export async function lexicalAbBench(): Promise<void> {
  const set = await SETS[SET]?.();
  if (!set) throw new Error(`BENCH_LEXICAL_AB_SET ${SET}: not a set here (python, code, manpages)`);
  const dir = mkdtempSync(join(tmpdir(), 'larder-lexical-ab-'));
  const path = join(dir, 'chunks.sqlite');
  const writer = new SqliteChunkIndex(path, { readWorker: false });
  await writer.setup();
  let seq = 0n;
  for (const [i, d] of set.docs.entries()) {
    const fileId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    await writer.write(docOps({ storeId: 's', organizationId: 'o', fileId, filename: d.filename }, await chunkDoc(d)), {
      projection: 'bench',
      version: 1,
      position: { commit: ++seq, prepare: seq },
    });
  }
  await writer.close();
  const indexes = {
    default: new SqliteChunkIndex(path, { readWorker: true }),
    variant: new SqliteChunkIndex(path, { readWorker: true, lexical: VARIANT }),
  };
  const times: Record<keyof typeof indexes, number[]> = { default: [], variant: [] };
  try {
    for (const index of Object.values(indexes)) await index.setup();
    for (let round = 0; round < ROUNDS; round++)
      for (const q of set.queries)
        for (const k of round % 2 ? (['variant', 'default'] as const) : (['default', 'variant'] as const)) {
          const t = performance.now();
          await indexes[k].searchLexical({ storeIds: ['s'], text: q.text, topK: 10 });
          if (round > 0) times[k].push(performance.now() - t);
        }
  } finally {
    for (const index of Object.values(indexes)) await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const options = (o: Partial<LexicalOptions>) => ({ ...DEFAULT_LEXICAL_OPTIONS, ...o });
  const key = (o: Partial<LexicalOptions>, text: string) => JSON.stringify([...queryTerms(text, options(o))]);
  const differ = set.queries.filter((q) => key({}, q.text) !== key(VARIANT, q.text)).length;
  const at = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))];
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  process.stdout.write(
    `\n${SET}: ${set.docs.length} documents, ${set.queries.length} queries (${differ} analyzed otherwise by the variant), ${ROUNDS - 1} timed rounds\n\n` +
      `| lexical top-10, in process | p50 ms | p99 ms | mean ms |\n|---|---:|---:|---:|\n`,
  );
  for (const [k, label] of [
    ['default', 'default'],
    ['variant', `variant ${JSON.stringify(VARIANT)}`],
  ] as const)
    process.stdout.write(
      `| ${label} | ${at(times[k], 0.5).toFixed(3)} | ${at(times[k], 0.99).toFixed(3)} | ${mean(times[k]).toFixed(3)} |\n`,
    );
}

import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { DEFAULT_FIELD_WEIGHTS, FieldWeights } from '@larder/chunk-index/analysis/analyzer';
import { ChunkHit, ChunkIndexOp } from '@larder/chunk-index';
import { fuse, FusionMethod } from '@larder/search/ranking';

/**
 * The lexical index's fields and the document evidence, measured beside the default: the default
 * lexical query on indexes built with other path and symbol field weights (BENCH_QUALITY_FIELDS,
 * `path,symbols;…`; default `0,0;2,0;1,1;0,1`: no fields, and others around the default), and chunk scores
 * interpolated with their file's (BENCH_QUALITY_DOC_EVIDENCE, `λ,…`; default `0.1,0.2,0.3`).
 */
export const FIELD_VARIANTS: FieldWeights[] = (process.env.BENCH_QUALITY_FIELDS ?? '0,0;2,0;1,1;0,1')
  .split(';')
  .filter(Boolean)
  .map((v) => v.split(',').map(Number))
  .map(([path, symbols]) => ({ path, symbols }))
  .filter((w) => w.path !== DEFAULT_FIELD_WEIGHTS.path || w.symbols !== DEFAULT_FIELD_WEIGHTS.symbols);
export const DOC_EVIDENCE = (process.env.BENCH_QUALITY_DOC_EVIDENCE ?? '0.1,0.2,0.3')
  .split(',')
  .filter(Boolean)
  .map(Number);

export const fieldsName = (w: FieldWeights) => `fields: path ${w.path}, symbols ${w.symbols}`;

/** Indexes of the same files as the evaluated one, each with other field weights (lexical only: no vectors). */
export class FieldVariants {
  private readonly dir = mkdtempSync(join(tmpdir(), 'larder-bench-fields-'));
  readonly indexes = FIELD_VARIANTS.map((weights, i) => ({
    weights,
    index: new SqliteChunkIndex(join(this.dir, `fields-${i}.sqlite`), {
      readWorker: false,
      lexicalFieldWeights: weights,
    }),
  }));
  private seq = 0n;

  async setup(): Promise<void> {
    for (const v of this.indexes) await v.index.setup();
  }

  /** The evaluated index's ops, without its vectors. */
  async write(ops: ChunkIndexOp[]): Promise<void> {
    const lexicalOps = ops.filter((o) => o.op !== 'setVectors');
    const position = { commit: ++this.seq, prepare: this.seq };
    for (const v of this.indexes) await v.index.write(lexicalOps, { projection: 'bench', version: 1, position });
  }

  /** Each variant's default lexical lists (top 100) of the queries. */
  async lists(storeId: string, queries: string[]): Promise<Array<[string, ChunkHit[][]]>> {
    const out: Array<[string, ChunkHit[][]]> = [];
    for (const v of this.indexes) {
      const lists: ChunkHit[][] = [];
      for (const text of queries) lists.push(await v.index.searchLexical({ storeIds: [storeId], text, topK: 100 }));
      out.push([fieldsName(v.weights), lists]);
    }
    return out;
  }

  async close(): Promise<void> {
    for (const v of this.indexes) await v.index.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Document evidence: each fused chunk's score interpolated with its file's, (1 − λ) × its own + λ × the
 * file's, the file's being the sum of its chunks' fused scores in the list over the best file's sum.
 */
export function withDocumentEvidence(
  lexical: ChunkHit[],
  dense: ChunkHit[],
  options: { method: FusionMethod; lexicalWeight: number },
  lambda: number,
): ChunkHit[] {
  const fused = fuse(lexical, dense, options);
  const files = new Map<string, number>();
  for (const c of fused) files.set(c.fileId, (files.get(c.fileId) ?? 0) + c.score);
  const best = Math.max(0, ...files.values()) || 1;
  return fused
    .map((c) => ({ ...c, score: (1 - lambda) * c.score + (lambda * files.get(c.fileId)!) / best }))
    .sort((a, b) => b.score - a.score);
}

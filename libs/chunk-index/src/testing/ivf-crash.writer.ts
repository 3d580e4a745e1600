/**
 * The child process of the embedded index's crash spec (ivf.crash.int-spec.ts): writes to the file at
 * argv[2] without end (new files, deletions, re-vectored files, new generations; IVF trainings and
 * list rewrites on the way), printing `wrote` after each commit, until the spec kills it (SIGKILL).
 */
import { ChunkIndexOp } from '../chunk-index.port';
import { SqliteChunkIndex } from '../embedded/sqlite.chunk-index';
import { lineChunks } from './file-ops';
import {
  CRASH_DIMS,
  CRASH_MODEL,
  CRASH_OPTIONS,
  CRASH_STORES,
  crashFileOps,
  crashVector,
  crashRng,
} from './ivf-crash.support';

async function main(): Promise<void> {
  const [path, seedArg] = process.argv.slice(2);
  const r = crashRng(Number(seedArg));
  const index = new SqliteChunkIndex(path, { readWorker: false, ...CRASH_OPTIONS });
  await index.setup();
  let seq = BigInt(Date.now()) * 1000n;
  const cp = () => ({ projection: 'crash', version: 1, position: { commit: ++seq, prepare: seq } });
  const vectors = (n: number) => Array.from({ length: n }, () => crashVector(r, CRASH_DIMS));
  for (;;) {
    const storeId = CRASH_STORES[Math.floor(r() * CRASH_STORES.length)];
    const files = await index.listFiles([storeId], 10_000);
    const pick = r();
    const ops: ChunkIndexOp[] = [];
    if (pick < 0.5 || files.length < 4) {
      const fileId = `00000000-0000-4000-8000-${Math.floor(r() * 2 ** 40)
        .toString(16)
        .padStart(12, '0')}`;
      const n = 5 + Math.floor(r() * 40);
      ops.push(...crashFileOps(storeId, fileId, n, r));
    } else {
      const f = files[Math.floor(r() * files.length)];
      const n = (await index.getChunks(storeId, f.fileId)).length;
      if (pick < 0.7) ops.push({ op: 'deleteFile', storeId, fileId: f.fileId });
      else if (pick < 0.85)
        ops.push({
          op: 'setVectors',
          storeId,
          fileId: f.fileId,
          generation: f.generation,
          model: CRASH_MODEL,
          vectors: vectors(n),
        });
      else {
        const generation = f.generation + 1;
        const m = 5 + Math.floor(r() * 40);
        ops.push(
          { op: 'putFile', file: { ...f, generation } },
          {
            op: 'setChunks',
            storeId,
            fileId: f.fileId,
            generation,
            chunks: lineChunks(m),
          },
          { op: 'setVectors', storeId, fileId: f.fileId, generation, model: CRASH_MODEL, vectors: vectors(m) },
        );
      }
    }
    await index.write(ops, cp());
    process.stdout.write('wrote\n');
  }
}

main().catch((err) => {
  process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});

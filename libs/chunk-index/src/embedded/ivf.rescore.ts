/** Dense search through a model's IVF: int8 candidates, re-scored exactly from their stored vectors. */
import Database from 'better-sqlite3';
import { blobCosine, IvfIndex, normalize } from './ivf';
import { ChunkQuery } from '../chunk-index.port';

/** Int8 scores below the topK-th by more than this are not re-scored (see `searchIvf`). */
const RESCORE_MARGIN = 0.02;

/** Candidates re-scored a statement (`RESCORE_BATCH` placeholders at most). */
const RESCORE_BATCH = 512;

/**
 * The exact cosine of the IVF's candidates with the query's direction `unit`, from their stored vectors
 * (chunks of files in `exclude` left out), in no particular order; `statements` caches the statements
 * by their placeholder count.
 */
export function rescore(
  db: Database.Database,
  statements: Record<string, Database.Statement>,
  unit: Float32Array,
  candidates: Array<{ id: number }>,
  exclude: Set<string> | null,
): Array<{ id: number; score: number }> {
  const exact: Array<{ id: number; score: number }> = [];
  for (let i = 0; i < candidates.length; i += RESCORE_BATCH) {
    const n = Math.min(RESCORE_BATCH, candidates.length - i);
    // the statement's placeholders padded (NULL) to a power of two: a few cached statements serve every count
    let slots = 16;
    while (slots < n) slots *= 2;
    const ids = new Array<number | null>(slots).fill(null);
    for (let j = 0; j < n; j++) ids[j] = candidates[i + j].id;
    const key = `${exclude ? 'x' : ''}${slots}`;
    // raw rows (arrays, not objects): the re-scoring is every dense query's SQLite read
    const stmt = (statements[key] ??= db
      .prepare(`SELECT id, vector${exclude ? ', file_id' : ''} FROM chunks WHERE id IN (${'?,'.repeat(slots - 1)}?)`)
      .raw());
    for (const [id, vector, fileId] of stmt.all(...ids) as Array<[number, Buffer, string | undefined]>)
      if (!exclude?.has(fileId!)) exact.push({ id, score: blobCosine(unit, vector) });
  }
  return exact;
}

/**
 * The query's nearest chunks in `ivf` (`probes` lists scanned, the stores of `q.storeIds` by their
 * `groups`): int8 candidates re-scored exactly with the stored float vectors, best first (file exclusions
 * applied, the metadata filter left to the caller; with a filter or an exclusion every candidate is kept).
 */
export function searchIvf(
  db: Database.Database,
  statements: Record<string, Database.Statement>,
  ivf: IvfIndex,
  probes: number,
  groups: ReadonlyMap<string, number>,
  q: ChunkQuery,
): Array<{ id: number; score: number }> {
  const unit = normalize(q.vector!);
  const mask = new Uint8Array(groups.size);
  for (const s of q.storeIds) {
    const g = groups.get(s);
    if (g !== undefined) mask[g] = 1;
  }
  const filtered = !!(q.filter || q.fileIds?.exclude?.length);
  const k = filtered ? Math.max(q.topK * 20, 1000) : Math.max(q.topK * 4, 40);
  let candidates = ivf.search(unit, probes, mask, k);
  if (!candidates.length) return [];
  // An int8 score is within a few thousandths of the exact one (rounding error ≈ 0.0023 standard
  // deviation for unit vectors), so a candidate more than RESCORE_MARGIN below the topK-th can not
  // enter the exact top: only the rest are re-scored. Filters keep every candidate (any may fail).
  if (!filtered && candidates.length > q.topK) {
    const floor = candidates[q.topK - 1].score - RESCORE_MARGIN;
    candidates = candidates.filter((c, i) => i < q.topK || c.score >= floor);
  }
  // exact scores from the stored vectors; the full rows are the caller's, only of those that can be answered
  const exact = rescore(
    db,
    statements,
    unit,
    candidates,
    q.fileIds?.exclude?.length ? new Set(q.fileIds.exclude) : null,
  );
  exact.sort((x, y) => y.score - x.score);
  return filtered ? exact : exact.slice(0, q.topK);
}

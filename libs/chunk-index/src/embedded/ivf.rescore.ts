import Database from 'better-sqlite3';
import { blobCosine } from './ivf';
import { Row } from './sqlite.schema';

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
    const ids: Array<number | null> = candidates.slice(i, i + RESCORE_BATCH).map((c) => c.id);
    // the statement's placeholders padded (NULL) to a power of two: a few cached statements serve every count
    let slots = 16;
    while (slots < ids.length) slots *= 2;
    while (ids.length < slots) ids.push(null);
    const key = `${exclude ? 'x' : ''}${slots}`;
    const stmt = (statements[key] ??= db.prepare(`SELECT id, ${exclude ? 'file_id, ' : ''}vector FROM chunks WHERE id IN (${'?,'.repeat(slots - 1)}?)`));
    for (const r of stmt.all(...ids) as Row[]) if (!exclude?.has(r.file_id as string)) exact.push({ id: r.id as number, score: blobCosine(unit, r.vector as Buffer) });
  }
  return exact;
}

import Database from 'better-sqlite3';
import { normalize } from './ivf';
import { candidateSql } from './sqlite.rows';
import { TopK } from './top-k';
import { ChunkQuery } from '../chunk-index.port';

/** One exact scan's vectors, with the file version they were read at. */
interface SmallScan {
  version: string;
  ids: number[];
  files: string[];
  /** The vectors as unit vectors, one after another: row i at `offsets[i]`, `lengths[i]` floats. */
  units: Float32Array;
  offsets: Int32Array;
  lengths: Int32Array;
}
/** An exact scan is kept in memory up to this many vectors (the IVF takes over at 20k by default). */
const SMALL_SCAN_MAX_VECTORS = 25_000;
/** Exact scans kept in memory at once (a few stores searched alone or together). */
const SMALL_SCAN_ENTRIES = 8;

/** The exact cosine scan of the stores too small for an IVF, over their vectors kept in memory. */
export class ExactScans {
  private readonly scans = new Map<string, SmallScan>();

  constructor(private readonly db: Database.Database) {}

  /** The query's best chunk ids by cosine, best first; `writes`: the index's count of writes that changed something. */
  search(q: ChunkQuery, writes: number): Array<{ id: number; score: number }> {
    const qv = normalize(q.vector!);
    const best = new TopK(q.filter ? Math.max(q.topK * 20, 1000) : q.topK);
    const scan = this.scan(q.storeIds, q.model ?? null, writes);
    const include = q.fileIds?.include ? new Set(q.fileIds.include) : null;
    const exclude = q.fileIds?.exclude?.length ? new Set(q.fileIds.exclude) : null;
    scanInto(best, qv, scan, include, exclude);
    return best.sorted();
  }

  /**
   * The vectors an exact scan reads (stores below the IVF's threshold), kept in memory between
   * queries while the file has not changed: SQLite's `data_version` (another connection's commit) and
   * the count of the index's writes that changed something (`writes`: a batch with ops, a reset) are
   * the key's version, so a cached scan is never stale, and a batch that moves only the checkpoint (a
   * search's activity event and other events the index does not handle) keeps it. Bounded (`SMALL_SCAN_MAX_VECTORS` per scan, `SMALL_SCAN_ENTRIES` scans).
   */
  private scan(storeIds: string[], model: string | null, writes: number): SmallScan {
    const version = `${this.db.pragma('data_version', { simple: true }) as number}:${writes}`;
    const key = `${model ?? ''}\u0000${[...new Set(storeIds)].sort().join('\u0000')}`;
    const hit = this.scans.get(key);
    if (hit && hit.version === version) {
      this.scans.delete(key);
      this.scans.set(key, hit);
      return hit;
    }
    const params: unknown[] = [];
    const where = candidateSql({ storeIds }, params);
    if (model) params.push(model);
    const stmt = this.db.prepare(
      `SELECT c.id, c.file_id, c.vector FROM chunks c WHERE ${where} AND c.vector IS NOT NULL${model ? ' AND c.model = ?' : ''}`,
    );
    const ids: number[] = [];
    const files: string[] = [];
    const blobs: Buffer[] = [];
    let floats = 0;
    for (const r of stmt.iterate(...params) as IterableIterator<{ id: number; file_id: string; vector: Buffer }>) {
      ids.push(r.id);
      files.push(r.file_id);
      blobs.push(r.vector);
      floats += r.vector.byteLength >> 2;
    }
    // one array of unit vectors (a zero vector stays zero: its cosine is 0, as `cosine` gives)
    const units = new Float32Array(floats);
    const offsets = new Int32Array(ids.length);
    const lengths = new Int32Array(ids.length);
    let o = 0;
    for (let i = 0; i < blobs.length; i++) {
      const b = blobs[i];
      const v = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.byteLength & ~3)));
      let n = 0;
      for (let j = 0; j < v.length; j++) n += v[j] * v[j];
      const inv = n ? 1 / Math.sqrt(n) : 0;
      for (let j = 0; j < v.length; j++) units[o + j] = v[j] * inv;
      offsets[i] = o;
      lengths[i] = v.length;
      o += v.length;
    }
    const scan: SmallScan = { version, ids, files, units, offsets, lengths };
    this.scans.delete(key);
    if (scan.ids.length <= SMALL_SCAN_MAX_VECTORS) {
      this.scans.set(key, scan);
      while (this.scans.size > SMALL_SCAN_ENTRIES) this.scans.delete(this.scans.keys().next().value as string);
    }
    return scan;
  }
}

/**
 * The exact scan's loop, in a function of its own: inside `searchDense` V8 only ever compiled it
 * on-stack (OSR) and threw that code away at the loop's exit, every search (a deopt for missing
 * type feedback in the code after it), so the scan mostly ran in the interpreter.
 */
function scanInto(
  best: TopK,
  qv: Float32Array,
  scan: SmallScan,
  include: Set<string> | null,
  exclude: Set<string> | null,
): void {
  const { units, offsets, lengths, ids, files } = scan;
  const d = qv.length;
  for (let i = 0; i < ids.length; i++) {
    if (lengths[i] !== d) continue;
    if (include || exclude) {
      const f = files[i];
      if ((include && !include.has(f)) || exclude?.has(f)) continue;
    }
    // the stored vectors are kept as unit vectors: the cosine is their dot product with the query's
    const o = offsets[i];
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 3 < d; j += 4) {
      s0 += qv[j] * units[o + j];
      s1 += qv[j + 1] * units[o + j + 1];
      s2 += qv[j + 2] * units[o + j + 2];
      s3 += qv[j + 3] * units[o + j + 3];
    }
    for (; j < d; j++) s0 += qv[j] * units[o + j];
    best.push(ids[i], s0 + s1 + (s2 + s3));
  }
}

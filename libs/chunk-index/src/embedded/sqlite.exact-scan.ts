import Database from 'better-sqlite3';
import { ExactCodes } from './exact-codes';
import { CodedRows, readScan, refreshScan, SmallScan } from './exact-scan-rows';
import { simdAvailable } from './int8-kernel';
import { normalize } from './ivf';
import { TopK } from './top-k';
import { ChunkQuery } from '../chunk-index.port';

/** A chunk an exact scan found: its row id, its cosine and its place. */
export interface ScannedChunk {
  id: number;
  score: number;
  storeId: string;
  fileId: string;
  chunkIndex: number;
}

/**
 * Bytes of exact scans kept in memory (LARDER_SEARCH_EXACT_SCAN_CACHE_MB): a store just below the IVF's
 * threshold (20k vectors) of the bundled model's 512 dimensions takes ~55 MiB with its int8 codes.
 */
export const DEFAULT_EXACT_SCAN_CACHE_BYTES = 128 * 2 ** 20;
/** Exact scans kept in memory at once (a few stores searched alone or together). */
const SMALL_SCAN_ENTRIES = 8;
/** What a row costs besides its vector: its id, chunk index, offset, length and its store and file ids (strings). */
const ROW_BYTES = 200;

/** The bytes a scan holds: its vectors, its rows at ROW_BYTES each and its codes. */
const scanBytes = (s: SmallScan) => {
  let codes = 0;
  for (const c of s.codes.values()) codes += c?.codes.bytes ?? 0;
  return s.units.byteLength + s.ids.length * ROW_BYTES + codes;
};
/** Fewer vectors of a dimension are scanned in floats alone (their codes would not pay for themselves). */
const CODES_MIN_ROWS = 1024;

/**
 * The exact cosine scan of the stores too small for an IVF, over their vectors kept in memory, the
 * least recently searched dropped beyond `capacityBytes` (a scan larger than it is read for each search).
 */
export class ExactScans {
  private readonly scans = new Map<string, SmallScan>();
  private bytes = 0;

  constructor(
    private readonly db: Database.Database,
    readonly capacityBytes = DEFAULT_EXACT_SCAN_CACHE_BYTES,
  ) {}

  /** What the kept scans hold. */
  stats(): { bytes: number; entries: number } {
    return { bytes: this.bytes, entries: this.scans.size };
  }

  /**
   * The query's best chunks by cosine, best first, with their places (read with the vectors: no row is
   * read again for them); `writes`: the index's count of writes that changed something, `rewrites` of
   * those that replaced vectors in place (or reset it).
   */
  search(q: ChunkQuery, writes: number, rewrites: number): ScannedChunk[] {
    const qv = normalize(q.vector!);
    const best = new TopK(q.filter ? Math.max(q.topK * 20, 1000) : q.topK);
    const scan = this.scan(q.storeIds, q.model ?? null, writes, rewrites);
    const skip = fileFilter(scan, q);
    const codes = this.codesOf(scan, qv.length);
    if (codes) {
      scanPositions(best, qv, scan, codes.codes.candidates(qv, best.k, skip));
      // the rows added since the codes were made
      scanPositions(best, qv, scan, skip ? codes.extra.filter((p) => !skip(p)) : codes.extra);
    } else scanInto(best, qv, scan, skip);
    // the heap holds scan positions, in id order like the ids: a tie is decided as by id
    return best.sorted().map(({ id: i, score }) => ({
      id: scan.ids[i],
      score,
      storeId: scan.stores[i],
      fileId: scan.files[i],
      chunkIndex: scan.chunkIndexes[i],
    }));
  }

  /**
   * The vectors an exact scan reads (stores below the IVF's threshold), kept in memory between
   * queries: read whole again when another connection committed (SQLite's `data_version`) or a write
   * replaced vectors in place (`rewrites`); brought up to date (`refreshScan`: the rows added read, the
   * rows removed dropped) after other writes that changed something (`writes`: a batch with ops). A
   * batch that moves only the checkpoint (a search's activity event and other events the index does
   * not handle) keeps it as it is. Bounded in bytes (`capacityBytes`) and in entries (`SMALL_SCAN_ENTRIES`).
   */
  private scan(storeIds: string[], model: string | null, writes: number, rewrites: number): SmallScan {
    const dataVersion = () => this.db.pragma('data_version', { simple: true }) as number;
    const version = dataVersion();
    const base = `${version}:${rewrites}`;
    const key = `${model ?? ''}\u0000${[...new Set(storeIds)].sort().join('\u0000')}`;
    const hit = this.scans.get(key);
    const scan =
      hit?.base === base
        ? hit.writes === writes
          ? hit
          : this.db.transaction(() => {
              const refreshed = refreshScan(this.db, hit, storeIds, model, writes, CODES_MIN_ROWS);
              // another connection committed meanwhile (perhaps vectors replaced in place): read whole in this snapshot
              return dataVersion() === version ? refreshed : readScan(this.db, storeIds, model, base, writes);
            })()
        : readScan(this.db, storeIds, model, base, writes);
    this.forget(key);
    if (scanBytes(scan) <= this.capacityBytes) {
      this.scans.set(key, scan);
      this.bytes += scanBytes(scan);
      this.evict();
    }
    return scan;
  }

  /** Drops the least recently searched scans while the kept ones are beyond a bound (the last kept, too, if it alone is). */
  private evict(): void {
    while (this.scans.size > SMALL_SCAN_ENTRIES || (this.scans.size && this.bytes > this.capacityBytes))
      this.forget(this.scans.keys().next().value as string);
  }

  /**
   * The scan's codes of its vectors of `dims` dimensions (made now if due), or null where floats alone
   * scan it: few vectors, no SIMD, or a scan not kept (its codes would be made again for each query).
   */
  private codesOf(scan: SmallScan, dims: number): CodedRows | null {
    if (scan.codes.has(dims)) return scan.codes.get(dims)!;
    if (![...this.scans.values()].includes(scan)) return null;
    const positions: number[] = [];
    for (let i = 0; i < scan.lengths.length; i++) if (scan.lengths[i] === dims) positions.push(i);
    const codes =
      positions.length >= CODES_MIN_ROWS && simdAvailable()
        ? { codes: ExactCodes.of(scan.units, scan.offsets, Int32Array.from(positions), dims), extra: [] }
        : null;
    scan.codes.set(dims, codes);
    // the kept scan's bytes grew: the others make room, or it is dropped itself
    if (codes) {
      this.bytes += codes.codes.bytes;
      this.evict();
    }
    return codes;
  }

  private forget(key: string): void {
    const s = this.scans.get(key);
    if (!s) return;
    this.scans.delete(key);
    this.bytes -= scanBytes(s);
  }
}

/** Whether the query's file filter (`fileIds`) leaves out a scan position; null: it leaves out none. */
function fileFilter(scan: SmallScan, q: ChunkQuery): ((position: number) => boolean) | null {
  const include = q.fileIds?.include ? new Set(q.fileIds.include) : null;
  const exclude = q.fileIds?.exclude?.length ? new Set(q.fileIds.exclude) : null;
  if (!include && !exclude) return null;
  const files = scan.files;
  return (p) => (include !== null && !include.has(files[p])) || exclude?.has(files[p]) === true;
}

/** The cosine of the unit query with the unit vector at `o` (four sums, which the JIT keeps in registers). */
function dot(qv: Float32Array, units: Float32Array, o: number, d: number): number {
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
  return s0 + s1 + (s2 + s3);
}

/**
 * The exact scan's loop, in a function of its own: inside `searchDense` V8 only ever compiled it
 * on-stack (OSR) and threw that code away at the loop's exit, every search (a deopt for missing
 * type feedback in the code after it), so the scan mostly ran in the interpreter.
 */
function scanInto(best: TopK, qv: Float32Array, scan: SmallScan, skip: ((position: number) => boolean) | null): void {
  const { units, offsets, lengths, ids } = scan;
  const d = qv.length;
  for (let i = 0; i < ids.length; i++) {
    if (lengths[i] !== d || skip?.(i)) continue;
    // the stored vectors are kept as unit vectors: the cosine is their dot product with the query's
    best.push(i, dot(qv, units, offsets[i], d));
  }
}

/** The float scores of the positions the codes left (ascending, of the query's dimension). */
function scanPositions(best: TopK, qv: Float32Array, scan: SmallScan, positions: number[]): void {
  const { units, offsets } = scan;
  const d = qv.length;
  for (const p of positions) best.push(p, dot(qv, units, offsets[p], d));
}

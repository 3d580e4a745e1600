import Database from 'better-sqlite3';
import { ExactCodes } from './exact-codes';
import { candidateSql } from './sqlite.rows';

/** A dimension's int8 codes, and the positions of the rows added since they were made (scored in floats). */
export interface CodedRows {
  codes: ExactCodes;
  extra: number[];
}

/** One exact scan's vectors and their chunks' places, in id order. */
export interface SmallScan {
  /** SQLite's data_version and the index's count of writes that replaced vectors in place, when it was read whole. */
  base: string;
  /** The index's count of writes when it was read or brought up to date. */
  writes: number;
  ids: number[];
  stores: string[];
  files: string[];
  chunkIndexes: Int32Array;
  /** The vectors as unit vectors, one after another: row i at `offsets[i]`, `lengths[i]` floats. */
  units: Float32Array;
  offsets: Int32Array;
  lengths: Int32Array;
  /** The int8 codes of its vectors of a dimension, made by a query of that dimension (null: not worth it). */
  codes: Map<number, CodedRows | null>;
}

type ScanRow = { id: number; store_id: string; file_id: string; chunk_index: number; vector: Buffer };

/** The rows a scan reads: the chunks a search answers (those of a file the index holds), as searchDense's rows join them. */
function scanSql(storeIds: string[], model: string | null, columns: string): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const where = candidateSql({ storeIds }, params);
  if (model) params.push(model);
  return {
    sql: `SELECT ${columns} FROM chunks c JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE ${where} AND c.vector IS NOT NULL${model ? ' AND c.model = ?' : ''} ORDER BY c.id`,
    params,
  };
}

/** Writes the stored vector `blob` at `o` as a unit vector (a zero vector stays zero: its cosine is 0); answers its length. */
function putUnit(units: Float32Array, o: number, blob: Buffer): number {
  const v = new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + (blob.byteLength & ~3)));
  let n = 0;
  for (let j = 0; j < v.length; j++) n += v[j] * v[j];
  const inv = n ? 1 / Math.sqrt(n) : 0;
  for (let j = 0; j < v.length; j++) units[o + j] = v[j] * inv;
  return v.length;
}

/** The scan of the stores' vectors (of `model`, or of every model), read whole. */
export function readScan(
  db: Database.Database,
  storeIds: string[],
  model: string | null,
  base: string,
  writes: number,
): SmallScan {
  const { sql, params } = scanSql(storeIds, model, 'c.id, c.store_id, c.file_id, c.chunk_index, c.vector');
  const rows = db.prepare(sql).all(...params) as ScanRow[];
  return assemble(rows.length, (n) => ({ row: rows[n] }), null, base, writes);
}

/**
 * The scan brought up to date after writes that only added and removed rows (no vector replaced in
 * place): the rows' ids are read again, the vectors of the rows kept are copied, and only the added
 * rows' are read. The codes are kept for the rows kept; the added rows are scored in floats beside
 * them, until they are too many and the codes are made again. Call it in a read transaction (one
 * snapshot for the ids and the rows).
 */
export function refreshScan(
  db: Database.Database,
  old: SmallScan,
  storeIds: string[],
  model: string | null,
  writes: number,
  codesMinRows: number,
): SmallScan {
  const { sql, params } = scanSql(storeIds, model, 'c.id');
  const ids = db
    .prepare(sql)
    .pluck()
    .all(...params) as number[];
  // both in id order: each new position's old one (-1: added), each old position's new one (-1: removed)
  const fromOld = new Int32Array(ids.length).fill(-1);
  const moved = new Int32Array(old.ids.length).fill(-1);
  const added: number[] = [];
  for (let n = 0, i = 0; n < ids.length; n++) {
    while (i < old.ids.length && old.ids[i] < ids[n]) i++;
    if (i < old.ids.length && old.ids[i] === ids[n]) {
      fromOld[n] = i;
      moved[i++] = n;
    } else added.push(ids[n]);
  }
  if (!added.length && ids.length === old.ids.length) return { ...old, writes };
  const read = new Map<number, ScanRow>();
  for (let i = 0; i < added.length; i += 500) {
    const batch = added.slice(i, i + 500);
    const stmt = db.prepare(
      `SELECT c.id, c.store_id, c.file_id, c.chunk_index, c.vector FROM chunks c WHERE c.id IN (${batch.map(() => '?').join(',')})`,
    );
    for (const r of stmt.all(...batch) as ScanRow[]) read.set(r.id, r);
  }
  const scan = assemble(
    ids.length,
    (n) => (fromOld[n] >= 0 ? { old: fromOld[n] } : { row: read.get(ids[n])! }),
    old,
    old.base,
    writes,
  );
  for (const [dims, coded] of old.codes) {
    if (!coded) continue;
    const positions = coded.codes.positions.map((p) => (p < 0 ? -1 : moved[p]));
    const extra = coded.extra.map((p) => moved[p]).filter((p) => p >= 0);
    for (let n = 0; n < ids.length; n++) if (fromOld[n] < 0 && scan.lengths[n] === dims) extra.push(n);
    let live = 0;
    for (const p of positions) if (p >= 0) live++;
    // many rows added or removed: the codes are made again (by the next query)
    if (extra.length <= Math.max(codesMinRows, live / 8) && live >= positions.length / 2)
      scan.codes.set(dims, { codes: coded.codes.remapped(positions), extra });
  }
  return scan;
}

/** A scan of `count` rows in id order, each a row read from the file or one of `old`'s positions. */
function assemble(
  count: number,
  source: (n: number) => { row: ScanRow } | { old: number },
  old: SmallScan | null,
  base: string,
  writes: number,
): SmallScan {
  const ids: number[] = new Array<number>(count);
  const stores: string[] = new Array<string>(count);
  const files: string[] = new Array<string>(count);
  const chunkIndexes = new Int32Array(count);
  const offsets = new Int32Array(count);
  const lengths = new Int32Array(count);
  const sources = Array.from({ length: count }, (_, n) => source(n));
  let floats = 0;
  for (const s of sources) floats += 'row' in s ? s.row.vector.byteLength >> 2 : old!.lengths[s.old];
  const units = new Float32Array(floats);
  let o = 0;
  sources.forEach((s, n) => {
    offsets[n] = o;
    if ('row' in s) {
      ids[n] = s.row.id;
      stores[n] = s.row.store_id;
      files[n] = s.row.file_id;
      chunkIndexes[n] = s.row.chunk_index;
      lengths[n] = putUnit(units, o, s.row.vector);
    } else {
      const i = s.old;
      ids[n] = old!.ids[i];
      stores[n] = old!.stores[i];
      files[n] = old!.files[i];
      chunkIndexes[n] = old!.chunkIndexes[i];
      lengths[n] = old!.lengths[i];
      units.set(old!.units.subarray(old!.offsets[i], old!.offsets[i] + lengths[n]), o);
    }
    o += lengths[n];
  });
  return { base, writes, ids, stores, files, chunkIndexes, units, offsets, lengths, codes: new Map() };
}

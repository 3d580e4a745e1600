import Database from 'better-sqlite3';
import { parentPort, workerData } from 'worker_threads';
import { buildIvf } from './ivf.persisted';
import { fileState } from './ivf.prefetch';

// The thread of prefetchIvf: the file's state, then its IVF lists read on a read-only connection; the
// arrays are transferred back, not copied.
const t0 = performance.now();
const { path } = workerData as { path: string };
const state = fileState(path);
const db = new Database(path, { readonly: true, fileMustExist: true });
try {
  const { built, transfer } = buildIvf(db);
  parentPort!.postMessage({ state, built, ms: performance.now() - t0 }, transfer);
} finally {
  db.close();
}

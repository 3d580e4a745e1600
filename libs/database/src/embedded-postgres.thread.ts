import { Worker } from 'worker_threads';
import type { EmbeddedPostgres } from './embedded-postgres';

// Runs startEmbeddedPostgres (PGlite and its wire server) in the worker; a `.ts` module (tests, run
// from the sources) is compiled on load with @swc/core.
const WORKER = `
const { parentPort, workerData } = require('worker_threads');
if (workerData.swc) {
  const swc = require(workerData.swc);
  const fs = require('fs');
  require.extensions['.ts'] = (m, filename) =>
    m._compile(swc.transformSync(fs.readFileSync(filename, 'utf8'), { filename, jsc: { parser: { syntax: 'typescript' } , target: 'es2022' }, module: { type: 'commonjs' } }).code, filename);
}
const { startEmbeddedPostgres } = require(workerData.module);
const message = (err) => String((err && (err.stack || err.message)) || err);
startEmbeddedPostgres({
  dataDir: workerData.dataDir,
  port: workerData.port,
  onConnectionError: (err) => parentPort.postMessage({ type: 'connection-error', message: (err && err.message) || String(err) }),
}).then(
  (pg) => {
    parentPort.once('message', () =>
      pg.stop().then(
        () => parentPort.postMessage({ type: 'stopped' }),
        (err) => parentPort.postMessage({ type: 'stopped', error: message(err) }),
      ),
    );
    parentPort.postMessage({ type: 'started', url: pg.url, port: pg.port });
  },
  (err) => parentPort.postMessage({ type: 'failed', error: message(err) }),
);
`;

type FromWorker = { type: 'started'; url: string; port: number } | { type: 'failed'; error: string } | { type: 'connection-error'; message: string } | { type: 'stopped'; error?: string };

/**
 * `startEmbeddedPostgres` in a worker thread: PGlite (PostgreSQL compiled to WebAssembly) and its wire
 * server run beside the main thread instead of on it. A server's start then loads its modules while
 * the database starts, and the database's work never holds up the main thread's event loop (clients
 * reach it over the loopback port, as before). This module loads nothing heavy itself.
 */
export function startEmbeddedPostgresThread(options: { dataDir: string; port?: number; onConnectionError?: (error: Error) => void }): Promise<EmbeddedPostgres> {
  const module = require.resolve('./embedded-postgres');
  const swc = module.endsWith('.ts') ? require.resolve('@swc/core') : null;
  const worker = new Worker(WORKER, { eval: true, workerData: { module, swc, dataDir: options.dataDir, port: options.port ?? 0 } });
  return new Promise<EmbeddedPostgres>((resolve, reject) => {
    let started = false;
    let stopping: Promise<void> | null = null;
    let onStopped: ((error?: string) => void) | null = null;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'connection-error') options.onConnectionError?.(new Error(m.message));
      else if (m.type === 'failed') {
        reject(new Error(`the embedded database did not start: ${m.error}`));
        void worker.terminate();
      } else if (m.type === 'stopped') onStopped?.(m.error);
      else if (m.type === 'started') {
        started = true;
        resolve({
          url: m.url,
          port: m.port,
          stop() {
            stopping ??= new Promise<void>((done, fail) => {
              onStopped = (error) => void worker.terminate().finally(() => (error ? fail(new Error(`stopping the embedded database: ${error}`)) : done()));
              worker.postMessage({ type: 'stop' });
            });
            return stopping;
          },
        });
      }
    });
    worker.on('error', (err) => {
      if (!started) reject(err);
      else options.onConnectionError?.(err);
    });
    worker.on('exit', (code) => {
      if (!started) reject(new Error(`the embedded database's thread exited (${code}) before it started`));
      else if (stopping) onStopped?.();
      else options.onConnectionError?.(new Error(`the embedded database's thread exited (${code})`));
    });
  });
}

import { moduleWorker } from '@larder/kernel/worker-module';
import type { EmbeddedPostgres } from './embedded-postgres';

export type FromWorker =
  | { type: 'started'; url: string; port: number }
  | { type: 'failed'; error: string }
  | { type: 'connection-error'; message: string }
  | { type: 'stopped'; error?: string };

/**
 * `startEmbeddedPostgres` in a worker thread: PGlite (PostgreSQL compiled to WebAssembly) and its wire
 * server run beside the main thread instead of on it. A server's start then loads its modules while
 * the database starts, and the database's work never holds up the main thread's event loop (clients
 * reach it over the loopback port, as before). This module loads nothing heavy itself.
 */
export function startEmbeddedPostgresThread(options: {
  dataDir: string;
  port?: number;
  onConnectionError?: (error: Error) => void;
}): Promise<EmbeddedPostgres> {
  const worker = moduleWorker(require.resolve('./embedded-postgres.worker'), {
    workerData: { dataDir: options.dataDir, port: options.port ?? 0 },
  });
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
              onStopped = (error) =>
                void worker
                  .terminate()
                  .finally(() => (error ? fail(new Error(`stopping the embedded database: ${error}`)) : done()));
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

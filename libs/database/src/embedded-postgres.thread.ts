import { moduleWorker } from '@larder/kernel/worker-module';
import type { EmbeddedPostgres } from './embedded-postgres';
import type { EmbeddedPostgresMemory } from './embedded-postgres.memory';

/** How long a memory report waits for the database's thread before it answers zeros. */
const MEMORY_ANSWER_MS = 1000;

export type ToWorker = { type: 'stop' } | { type: 'memory'; id: number };
export type FromWorker =
  | { type: 'started'; url: string; port: number }
  | { type: 'memory'; id: number; memory: EmbeddedPostgresMemory }
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
  sharedBuffersMb?: number;
}): Promise<EmbeddedPostgres> {
  const worker = moduleWorker(require.resolve('./embedded-postgres.worker'), {
    workerData: { dataDir: options.dataDir, port: options.port ?? 0, sharedBuffersMb: options.sharedBuffersMb },
  });
  const send = (m: ToWorker) => worker.postMessage(m);
  /** Asks for the memory report: answered by id, or with zeros once the thread has stopped or after MEMORY_ANSWER_MS. */
  const memoryAsked = new Map<number, (m: EmbeddedPostgresMemory) => void>();
  let nextId = 0;
  const noMemory = { wasmBytes: 0, sharedBuffersBytes: 0 };
  return new Promise<EmbeddedPostgres>((resolve, reject) => {
    let started = false;
    let stopping: Promise<void> | null = null;
    let onStopped: ((error?: string) => void) | null = null;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'connection-error') options.onConnectionError?.(new Error(m.message));
      else if (m.type === 'memory') {
        memoryAsked.get(m.id)?.(m.memory);
        memoryAsked.delete(m.id);
      } else if (m.type === 'failed') {
        reject(new Error(`the embedded database did not start: ${m.error}`));
        void worker.terminate();
      } else if (m.type === 'stopped') onStopped?.(m.error);
      else if (m.type === 'started') {
        started = true;
        resolve({
          url: m.url,
          port: m.port,
          memory() {
            if (stopping) return Promise.resolve(noMemory);
            const id = nextId++;
            return new Promise((answer) => {
              // a thread busy with a long statement answers late: a scrape or the start log does not wait for it
              const late = setTimeout(() => (memoryAsked.delete(id), answer(noMemory)), MEMORY_ANSWER_MS);
              late.unref();
              memoryAsked.set(id, (m) => (clearTimeout(late), answer(m)));
              send({ type: 'memory', id });
            });
          },
          stop() {
            stopping ??= new Promise<void>((done, fail) => {
              onStopped = (error) =>
                void worker
                  .terminate()
                  .finally(() => (error ? fail(new Error(`stopping the embedded database: ${error}`)) : done()));
              send({ type: 'stop' });
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
      for (const answer of memoryAsked.values()) answer(noMemory);
      memoryAsked.clear();
      if (!started) reject(new Error(`the embedded database's thread exited (${code}) before it started`));
      else if (stopping) onStopped?.();
      else options.onConnectionError?.(new Error(`the embedded database's thread exited (${code})`));
    });
  });
}

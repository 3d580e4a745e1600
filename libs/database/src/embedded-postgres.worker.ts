import { parentPort, workerData } from 'worker_threads';
import { startEmbeddedPostgres } from './embedded-postgres';
import type { FromWorker, ToWorker } from './embedded-postgres.thread';

// The embedded database's thread (embedded-postgres.thread.ts): starts PGlite and its wire server,
// reports the address, and stops them when the main thread asks.
const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);
const message = (err: unknown) => String((err as Error)?.stack || (err as Error)?.message || err);
const {
  dataDir,
  port: listenOn,
  sharedBuffersMb,
} = workerData as {
  dataDir: string;
  port: number;
  sharedBuffersMb?: number;
};

startEmbeddedPostgres({
  dataDir,
  port: listenOn,
  sharedBuffersMb,
  onConnectionError: (err) => send({ type: 'connection-error', message: err?.message || String(err) }),
}).then(
  (pg) => {
    const onMessage = (m: ToWorker) => {
      if (m.type === 'memory') {
        void pg.memory().then((memory) => send({ type: 'memory', id: m.id, memory }));
        return;
      }
      port.off('message', onMessage);
      pg.stop().then(
        () => send({ type: 'stopped' }),
        (err) => send({ type: 'stopped', error: message(err) }),
      );
    };
    port.on('message', onMessage);
    send({ type: 'started', url: pg.url, port: pg.port });
  },
  (err) => send({ type: 'failed', error: message(err) }),
);

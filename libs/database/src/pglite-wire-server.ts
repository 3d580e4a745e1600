import { createServer, Server, Socket } from 'net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

interface Batch {
  conn: number;
  messages: Uint8Array[];
  socket: Socket;
  done: () => void;
}

/**
 * Serves one PGlite instance to many Postgres wire-protocol connections.
 *
 * PGlite is a single backend, so connections are multiplexed. Unlike a per-message multiplexer, this
 * one runs a connection's messages up to each protocol synchronization point (Sync or a simple Query)
 * as one unit, so the extended protocol's unnamed statement and portal of one connection are never
 * overwritten by another's (node-postgres sends Parse/Bind/Execute/Sync for every parameterized
 * query). While the backend is inside a transaction, only the connection that opened it is served; a
 * connection that closes mid-transaction is rolled back.
 */
export class PgliteWireServer {
  private server: Server | null = null;
  private queue: Batch[] = [];
  private running = false;
  private owner: number | null = null;
  private nextConn = 1;
  private sockets = new Set<Socket>();

  constructor(private readonly db: PGlite) {}

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    // Let queued work finish before the caller closes the database.
    while (this.running) await new Promise((r) => setTimeout(r, 5));
  }

  private accept(socket: Socket): void {
    const conn = this.nextConn++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    let pending: Uint8Array[] = [];
    let chain = Promise.resolve();
    socket.on('data', (data: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, data]) : data;
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const len = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          if (buffer.length < len) return;
          const msg = buffer.subarray(0, len);
          buffer = buffer.subarray(len);
          if (code === SSL_REQUEST) {
            socket.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) {
            socket.end();
            return;
          }
          if (code !== PROTOCOL_3) {
            socket.destroy();
            return;
          }
          started = true;
          const startup = new Uint8Array(msg);
          chain = chain.then(() => this.enqueue(conn, [startup], socket));
          continue;
        }
        if (buffer.length < 5) return;
        const len = buffer.readInt32BE(1) + 1;
        if (buffer.length < len) return;
        const type = String.fromCharCode(buffer[0]);
        const msg = new Uint8Array(buffer.subarray(0, len));
        buffer = buffer.subarray(len);
        if (type === 'X') {
          socket.end();
          return;
        }
        pending.push(msg);
        if (type === 'S' || type === 'Q' || type === 'H') {
          const batch = pending;
          pending = [];
          chain = chain.then(() => this.enqueue(conn, batch, socket));
        }
      }
    });
    const closed = () => {
      if (!this.sockets.delete(socket)) return;
      this.queue = this.queue.filter((b) => {
        if (b.conn !== conn) return true;
        b.done();
        return false;
      });
      if (this.owner === conn) {
        this.enqueueRollback(conn);
      }
    };
    socket.on('close', closed);
    socket.on('error', () => socket.destroy());
  }

  private enqueue(conn: number, messages: Uint8Array[], socket: Socket): Promise<void> {
    return new Promise<void>((done) => {
      this.queue.push({ conn, messages, socket, done });
      void this.drain();
    });
  }

  private enqueueRollback(conn: number): void {
    this.queue.unshift({
      conn,
      messages: [],
      socket: null as unknown as Socket,
      done: () => undefined,
    });
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) {
        let i = 0;
        if (this.owner !== null && this.db.isInTransaction()) {
          i = this.queue.findIndex((b) => b.conn === this.owner);
          if (i < 0) break; // wait for the transaction owner's next batch
        }
        const [batch] = this.queue.splice(i, 1);
        await this.db.runExclusive(async () => {
          if (batch.messages.length === 0) {
            // the owner disconnected inside a transaction
            if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
            return;
          }
          for (const message of batch.messages) {
            await this.db.execProtocolRawStream(message, {
              onRawData: (data: Uint8Array) => {
                if (batch.socket.writable) batch.socket.write(data);
              },
            });
          }
        });
        this.owner = this.db.isInTransaction() ? batch.conn : null;
        batch.done();
      }
    } finally {
      this.running = false;
    }
  }
}

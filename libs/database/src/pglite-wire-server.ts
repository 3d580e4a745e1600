import { createServer, Server, Socket } from 'net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** PostgreSQL's own bound on one frontend message (PQ_LARGE_MESSAGE_LIMIT, 1 GB - 1). */
export const MAX_MESSAGE_BYTES = 0x3fffffff;
/** Startup packets are small (PostgreSQL refuses more than 10,000 bytes). */
const MAX_STARTUP_BYTES = 10_000;
/** Above this many bytes waiting to be sent to a client, its next request waits for the socket to drain. */
const HIGH_WATER_BYTES = 1024 * 1024;

/** A frontend message: type byte, then its length (counting itself) and body. */
function frontendMessage(type: string, body: Buffer): Uint8Array {
  const out = Buffer.alloc(5 + body.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return new Uint8Array(out);
}
const SYNC_MESSAGE = frontendMessage('S', Buffer.alloc(0));
const ROLLBACK_MESSAGE = frontendMessage('Q', Buffer.from('ROLLBACK\0'));

/** One client connection. */
interface Connection {
  id: number;
  socket: Socket;
  closed: boolean;
}

/** Messages of one connection, up to and including a synchronization point, run as one unit. */
interface Batch {
  conn: Connection;
  messages: Uint8Array[];
  /** Ends with Flush: the client is inside an extended-protocol pipeline and will send more before Sync. */
  midPipeline: boolean;
  done: () => void;
}

/**
 * Reassembles wire-protocol messages from socket chunks without copying the bytes received so far
 * on every chunk (a 64 MB message arrives in about a thousand of them).
 */
class MessageReader {
  private chunks: Buffer[] = [];
  private length = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  get available(): number {
    return this.length;
  }

  /** The 32-bit big-endian integer at `offset`, or null while fewer bytes have arrived. */
  int32(offset: number): number | null {
    if (this.length < offset + 4) return null;
    return this.peek(offset + 4).readInt32BE(offset);
  }

  byte(offset: number): number | null {
    if (this.length < offset + 1) return null;
    return this.peek(offset + 1)[offset];
  }

  /** Removes and returns the first `n` bytes (the caller checked `available`), as its own copy. */
  take(n: number): Uint8Array {
    const head = this.peek(n);
    const out = new Uint8Array(n);
    out.set(head.subarray(0, n));
    if (head.length === n) {
      this.chunks.shift();
    } else {
      this.chunks[0] = head.subarray(n);
    }
    this.length -= n;
    return out;
  }

  /** Makes the first chunk hold at least `n` bytes, joining chunks only when a message spans them. */
  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) {
      let count = 0;
      let joined = 0;
      while (joined < n) joined += this.chunks[count++].length;
      this.chunks.splice(0, count, Buffer.concat(this.chunks.slice(0, count), joined));
    }
    return this.chunks[0];
  }
}

/**
 * Serves one PGlite instance to many Postgres wire-protocol connections.
 *
 * PGlite is a single backend, so connections are multiplexed. Unlike a per-message multiplexer (such
 * as `@electric-sql/pglite-socket` 0.2.17, which fails the event-store contract with "unnamed prepared
 * statement does not exist" under concurrent appenders), this
 * one runs a connection's messages up to each protocol synchronization point (Sync or a simple Query)
 * as one unit, so the extended protocol's unnamed statement and portal of one connection are never
 * overwritten by another's (node-postgres sends Parse/Bind/Execute/Sync for every parameterized
 * query). While the backend is inside a transaction, or a connection's pipeline paused at a Flush,
 * only that connection is served; a connection that closes in a transaction is rolled back.
 *
 * PGlite hands each piece of a result over as a view into its WebAssembly memory, which the next
 * piece overwrites and a memory growth detaches, so every piece is copied before it is queued on the
 * socket. A connection whose client reads slowly gets its next unit run only once its socket has
 * drained, and a protocol violation or a failure ends that connection alone.
 */
export class PgliteWireServer {
  private server: Server | null = null;
  private queue: Batch[] = [];
  private running = false;
  /** The connection the backend is reserved for (open transaction or paused pipeline), if any. */
  private owner: Connection | null = null;
  private nextConn = 1;
  private connections = new Set<Connection>();

  constructor(
    private readonly db: PGlite,
    private readonly onConnectionError: (error: Error) => void = () => undefined,
  ) {}

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    // Let queued work finish before the caller closes the database.
    while (this.running) await new Promise((r) => setTimeout(r, 5));
  }

  /** Connections currently open (for tests and diagnostics). */
  get connectionCount(): number {
    return this.connections.size;
  }

  private accept(socket: Socket): void {
    const conn: Connection = { id: this.nextConn++, socket, closed: false };
    this.connections.add(conn);
    socket.setNoDelay(true);
    const reader = new MessageReader();
    let started = false;
    let pending: Uint8Array[] = [];
    let chain = Promise.resolve();
    const fail = (reason: string) => {
      this.onConnectionError(new Error(`embedded Postgres connection ${conn.id}: ${reason}`));
      socket.destroy();
    };
    const submit = (messages: Uint8Array[], midPipeline: boolean) => {
      chain = chain.then(async () => {
        if (conn.closed) return;
        await this.enqueue(conn, messages, midPipeline);
        await this.drained(conn);
      });
    };
    const parse = (): void => {
      for (;;) {
        if (!started) {
          const len = reader.int32(0);
          const code = reader.int32(4);
          if (len === null || code === null) return;
          if (len < 8 || len > MAX_STARTUP_BYTES) return fail(`invalid startup packet length ${len}`);
          if (reader.available < len) return;
          const msg = reader.take(len);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) {
            socket.end(); // PGlite runs each request to completion; there is nothing to cancel
            return;
          }
          if (code !== PROTOCOL_3) return fail(`unsupported protocol ${code}`);
          started = true;
          submit([msg], false);
          continue;
        }
        const type = reader.byte(0);
        const declared = reader.int32(1);
        if (type === null || declared === null) return;
        if (declared < 4 || declared > MAX_MESSAGE_BYTES)
          return fail(`invalid length ${declared} for message '${String.fromCharCode(type)}'`);
        if (reader.available < declared + 1) return;
        const msg = reader.take(declared + 1);
        const t = String.fromCharCode(type);
        if (t === 'X') {
          socket.end();
          return;
        }
        pending.push(msg);
        if (t === 'S' || t === 'Q' || t === 'H') {
          const batch = pending;
          pending = [];
          submit(batch, t === 'H');
        }
      }
    };
    socket.on('data', (data: Buffer) => {
      if (conn.closed) return;
      try {
        reader.push(data);
        parse();
      } catch (e) {
        fail((e as Error).message);
      }
    });
    socket.on('close', () => this.drop(conn));
    socket.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET' && (e as NodeJS.ErrnoException).code !== 'EPIPE')
        fail(e.message);
      socket.destroy();
    });
  }

  /** Forgets a closed connection: its queued requests are dropped, and the backend released if it held it. */
  private drop(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    this.connections.delete(conn);
    this.queue = this.queue.filter((b) => {
      if (b.conn !== conn) return true;
      b.done();
      return false;
    });
    // When its batch is running right now, the drain loop releases the backend once the batch returns.
    if (this.owner === conn) this.enqueueRelease(conn);
  }

  /** Resolves once the connection's socket has sent enough of what it holds (or has closed). */
  private drained(conn: Connection): Promise<void> {
    const { socket } = conn;
    if (conn.closed || socket.writableLength <= HIGH_WATER_BYTES) return Promise.resolve();
    socket.pause(); // no new requests from a client that is not reading its answers
    return new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        if (!conn.closed) socket.resume();
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }

  private enqueue(conn: Connection, messages: Uint8Array[], midPipeline: boolean): Promise<void> {
    return new Promise<void>((done) => {
      this.queue.push({ conn, messages, midPipeline, done });
      void this.drain();
    });
  }

  /** Frees the backend from a closed owner: rolls back its transaction, drops its pipeline. */
  private enqueueRelease(conn: Connection): void {
    this.queue.unshift({ conn, messages: [], midPipeline: false, done: () => undefined });
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) {
        let i = 0;
        if (this.owner !== null) {
          i = this.queue.findIndex((b) => b.conn === this.owner);
          if (i < 0) break; // wait for the owner's next batch
        }
        const [batch] = this.queue.splice(i, 1);
        try {
          await this.run(batch);
        } catch (e) {
          // PGlite failed outside of SQL error handling: the client cannot know its state, end it.
          this.onConnectionError(new Error(`embedded Postgres connection ${batch.conn.id}: ${(e as Error).message}`));
          batch.conn.socket.destroy();
          this.drop(batch.conn);
        } finally {
          batch.done();
        }
        if (batch.conn.closed) await this.release();
        else this.owner = this.db.isInTransaction() || batch.midPipeline ? batch.conn : null;
      }
    } finally {
      this.running = false;
    }
  }

  private async run(batch: Batch): Promise<void> {
    // A release (no messages) is done by the loop, as for any closed connection; a closed connection's
    // requests are not run.
    if (batch.messages.length === 0 || batch.conn.closed) return;
    const { socket } = batch.conn;
    await this.db.runExclusive(async () => {
      socket.cork();
      try {
        for (const message of batch.messages) {
          await this.db.execProtocolRawStream(message, {
            onRawData: (data: Uint8Array) => {
              // `data` is a view into PGlite's memory, valid only during this call: copy it. Called from
              // inside the WebAssembly module, so it must not throw.
              try {
                if (!batch.conn.closed && socket.writable) socket.write(Buffer.from(data));
              } catch {
                socket.destroy();
              }
            },
          });
        }
      } finally {
        socket.uncork();
      }
    });
  }

  /**
   * Frees the backend from a vanished owner: ends a pipeline it left at a Flush (Sync) and rolls back
   * a transaction it left open. Runs the protocol directly, with the output discarded: `db.exec` takes
   * the lock that `runExclusive` already holds.
   */
  private async release(): Promise<void> {
    this.owner = null;
    await this.db
      .runExclusive(async () => {
        const discard = { onRawData: () => undefined };
        await this.db.execProtocolRawStream(SYNC_MESSAGE, discard);
        if (this.db.isInTransaction()) await this.db.execProtocolRawStream(ROLLBACK_MESSAGE, discard);
      })
      .catch((e: Error) =>
        this.onConnectionError(
          new Error(`embedded Postgres: releasing a closed connection's transaction failed: ${e.message}`),
        ),
      );
  }
}

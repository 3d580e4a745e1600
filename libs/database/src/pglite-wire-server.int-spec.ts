import { connect, Socket } from 'net';
import { Client, Pool } from 'pg';
import { EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

/**
 * The multiplexer in front of the single PGlite backend: many `pg` connections at once, transactions
 * that never interleave, and a client that misbehaves or vanishes ends only its own connection.
 */
describe('PgliteWireServer', () => {
  let pg: EmbeddedPostgres;
  let pool: Pool;
  beforeAll(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    pool = new Pool({ connectionString: pg.url, max: 8 });
    pool.on('error', () => undefined);
    await pool.query('CREATE TABLE counters (id text PRIMARY KEY, n int NOT NULL)');
    await pool.query('CREATE TABLE marks (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await pool.end();
    await pg.stop();
  });

  /** A raw wire-protocol connection that has completed startup. */
  async function rawConnection(): Promise<{ socket: Socket; received: () => Buffer }> {
    const socket = connect(pg.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => {
        const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
        const startup = Buffer.alloc(8 + params.length);
        startup.writeInt32BE(startup.length, 0);
        startup.writeInt32BE(196608, 4);
        params.copy(startup, 8);
        socket.write(startup);
      });
      socket.on('data', (d: Buffer) => {
        chunks.push(d);
        // ReadyForQuery ('Z', length 5, status) ends the startup answer.
        const all = Buffer.concat(chunks);
        if (all.length >= 6 && all[all.length - 6] === 0x5a) resolve();
      });
      socket.once('close', () => reject(new Error('closed during startup')));
    });
    return { socket, received: () => Buffer.concat(chunks) };
  }

  const closed = (socket: Socket) =>
    new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

  it('answers many concurrent connections, each with its own results (extended protocol batches are never mixed)', async () => {
    const clients = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const c = new Client({ connectionString: pg.url });
        await c.connect();
        return c;
      }),
    );
    try {
      await Promise.all(
        clients.map(async (c, i) => {
          for (let q = 0; q < 40; q++) {
            const v = `client-${i}-query-${q}`;
            const r = await c.query<{ v: string; n: number }>('SELECT $1::text AS v, $2::int AS n', [v, q]);
            expect(r.rows).toEqual([{ v, n: q }]);
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('serializes transactions per client: no lost update, no statement of one client inside another client’s transaction', async () => {
    await pool.query(`INSERT INTO counters VALUES ('tx', 0)`);
    const workers = 5;
    const rounds = 6;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let r = 0; r < rounds; r++) {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            const { rows } = await c.query<{ n: number }>(`SELECT n FROM counters WHERE id = 'tx'`);
            await new Promise((resolve) => setTimeout(resolve, 2)); // others get a chance to interleave
            await c.query(`UPDATE counters SET n = $1 WHERE id = 'tx'`, [rows[0].n + 1]);
            await c.query('COMMIT');
          } finally {
            c.release();
          }
        }
      }),
    );
    expect((await pool.query(`SELECT n FROM counters WHERE id = 'tx'`)).rows[0].n).toBe(workers * rounds);
  });

  it('keeps a paged query (Execute + Flush until Sync) to its connection while others run', async () => {
    const pager = new Client({ connectionString: pg.url });
    await pager.connect();
    try {
      const paged = pager.query({
        text: 'SELECT g FROM generate_series(1, 3000) g WHERE g > $1',
        values: [0],
        rows: 7,
      } as unknown as string);
      const others = Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          pool.query<{ v: number }>('SELECT $1::int AS v', [i]).then((r) => expect(r.rows[0].v).toBe(i)),
        ),
      );
      const [result] = await Promise.all([paged, others]);
      expect(result.rows.map((r: { g: number }) => r.g)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    } finally {
      await pager.end();
    }
  });

  it('rolls back the transaction of a client that disconnects inside it, and serves the clients that waited', async () => {
    const quitter = new Client({ connectionString: pg.url });
    quitter.on('error', () => undefined);
    await quitter.connect();
    await quitter.query('BEGIN');
    await quitter.query(`INSERT INTO marks VALUES ('uncommitted')`);
    // Another client queues behind the open transaction.
    const waiting = pool.query<{ n: string }>(`SELECT count(*) AS n FROM marks WHERE id = 'uncommitted'`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    (quitter as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
    expect((await waiting).rows[0].n).toBe('0');
    await pool.query(`INSERT INTO marks VALUES ('committed')`);
    expect((await pool.query(`SELECT id FROM marks ORDER BY id`)).rows).toEqual([{ id: 'committed' }]);
  });

  it('rolls back a transaction begun by a client that vanished while its request was running', async () => {
    const { socket } = await rawConnection();
    // BEGIN and an insert in one simple query, then gone before the answer.
    const sql = Buffer.from(`BEGIN; INSERT INTO marks VALUES ('vanished'); SELECT pg_sleep(0.05);\0`);
    const q = Buffer.alloc(5);
    q.write('Q', 0);
    q.writeInt32BE(4 + sql.length, 1);
    socket.write(Buffer.concat([q, sql]), () => socket.destroy());
    await closed(socket);
    const r = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM marks WHERE id = 'vanished'`);
    expect(r.rows[0].n).toBe('0');
  });

  it.each([
    ['a message length below 4', () => Buffer.from([0x51, 0, 0, 0, 0])],
    ['a negative message length', () => Buffer.from([0x51, 0xff, 0xff, 0xff, 0xf0])],
    ['a message length over 1 GB', () => Buffer.from([0x51, 0x7f, 0, 0, 0])],
  ])('ends only the connection that sends %s', async (_name, bytes) => {
    const { socket } = await rawConnection();
    socket.write(bytes());
    await closed(socket);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it.each([
    ['a startup packet shorter than its header', Buffer.from([0, 0, 0, 2, 0, 3, 0, 0])],
    ['a 2 GB startup packet', Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0])],
    ['an unknown protocol version', Buffer.from([0, 0, 0, 8, 0, 9, 0, 0])],
  ])('ends only the connection that opens with %s', async (_name, bytes) => {
    const socket = connect(pg.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(bytes);
    await closed(socket);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('goes on serving others while a client does not read a 64 MB answer', async () => {
    const { socket } = await rawConnection();
    socket.pause();
    const sql = Buffer.from(`SELECT repeat('w', ${64 * 1024 * 1024})\0`);
    const q = Buffer.alloc(5);
    q.write('Q', 0);
    q.writeInt32BE(4 + sql.length, 1);
    socket.write(Buffer.concat([q, sql]));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    for (let i = 0; i < 10; i++) expect((await pool.query('SELECT $1::int AS v', [i])).rows[0].v).toBe(i);
    expect(Date.now() - started).toBeLessThan(10_000);
    socket.destroy();
  });
});

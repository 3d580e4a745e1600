import 'reflect-metadata';
import { createHash, randomBytes, randomUUID } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client, Pool } from 'pg';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import {
  EmbeddedPostgres,
  publishEmbeddedDatabase,
  runningEmbeddedDatabase,
  startEmbeddedPostgres,
  unpublishEmbeddedDatabase,
} from './embedded-postgres';

/**
 * Large values through every path the app takes to its database: a TypeORM DataSource (read models),
 * a raw `pg` Pool, the Postgres event store (readStream and readAll) and the CLI, which finds a running
 * server's embedded database through the data directory's lock file. Each size is written and read
 * back as text and as jsonb, through the extended (parameterized) and the simple query protocol.
 *
 * `largeValuesContract` holds for any PostgreSQL (a server passes it too); it runs here on the
 * embedded database, the app's default, whose wire server is what it guards.
 */

const MB = 1024 * 1024;
/** The wire server's reassembly of large messages, on the raw Pool: up to 64 MB (about a thousand socket chunks). */
const SIZES_MB = [1, 4, 16, 64];
/** The client stacks above it (TypeORM, the event store, the CLI): one value within a chunk, one of many chunks. */
const STACK_SIZES_MB = [1, 16];
const SLOW = 240_000;

/** A string of exactly `bytes` UTF-8 bytes: random base64 (so a misplaced chunk shows) plus multi-byte characters. */
function bigText(bytes: number): string {
  const tail = 'é€😀'; // 2 + 3 + 4 bytes
  const head = bytes - Buffer.byteLength(tail);
  return (
    randomBytes(Math.ceil((head * 3) / 4))
      .toString('base64')
      .slice(0, head) + tail
  );
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex');

/** Compares by length and digest so a failure does not print megabytes. */
function expectSame(actual: unknown, expected: string): void {
  expect(typeof actual).toBe('string');
  expect(Buffer.byteLength(actual as string)).toBe(Buffer.byteLength(expected));
  expect(digest(actual as string)).toBe(digest(expected));
}

@Entity({ name: 'wire_contract_values' })
class WireContractValue {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  body!: string;

  @Column('jsonb')
  doc!: { s: string; n: number };
}

const TABLE = `CREATE TABLE IF NOT EXISTS wire_contract_values (id text PRIMARY KEY, body text NOT NULL, doc jsonb NOT NULL)`;

interface Target {
  url: string;
  /** The CLI's view of the same database, when the target publishes one (embedded only). */
  cliUrl?: () => string | null;
  close(): Promise<void>;
}

function largeValuesContract(name: string, open: () => Promise<Target>): void {
  describe(`large values through every database path: ${name}`, () => {
    let target: Target;
    let pool: Pool;
    beforeAll(async () => {
      target = await open();
      pool = new Pool({ connectionString: target.url, max: 4 });
      pool.on('error', () => undefined);
      await pool.query(TABLE);
    }, SLOW);
    afterAll(async () => {
      await pool?.end();
      await target?.close();
    }, SLOW);

    it(
      'raw pg Pool: writes and reads text and jsonb of 1, 4, 16 and 64 MB (extended and simple protocol)',
      async () => {
        for (const mb of SIZES_MB) {
          const id = `pg-${mb}-${randomUUID()}`;
          const text = bigText(mb * MB);
          await pool.query('INSERT INTO wire_contract_values (id, body, doc) VALUES ($1, $2, $3)', [
            id,
            text,
            JSON.stringify({ s: text, n: mb }),
          ]);
          const extended = await pool.query<{ body: string; doc: { s: string; n: number } }>(
            'SELECT body, doc FROM wire_contract_values WHERE id = $1',
            [id],
          );
          expectSame(extended.rows[0].body, text);
          expectSame(extended.rows[0].doc.s, text);
          expect(extended.rows[0].doc.n).toBe(mb);
          // No parameters: node-postgres sends a simple Query message.
          const simple = await pool.query<{ body: string; doc: { s: string } }>(
            `SELECT body, doc FROM wire_contract_values WHERE id = '${id}'`,
          );
          expectSame(simple.rows[0].body, text);
          expectSame(simple.rows[0].doc.s, text);
          await pool.query('DELETE FROM wire_contract_values WHERE id = $1', [id]);
        }
      },
      SLOW,
    );

    it(
      'TypeORM DataSource: saves and loads entities with text and jsonb of 1 and 16 MB',
      async () => {
        const ds = new DataSource({
          type: 'postgres',
          url: target.url,
          entities: [WireContractValue],
          synchronize: false,
          extra: { max: 4 },
        });
        await ds.initialize();
        try {
          const repo = ds.getRepository(WireContractValue);
          for (const mb of STACK_SIZES_MB) {
            const id = `typeorm-${mb}-${randomUUID()}`;
            const text = bigText(mb * MB);
            await repo.save(repo.create({ id, body: text, doc: { s: text, n: mb } }));
            const loaded = await repo.findOneByOrFail({ id });
            expectSame(loaded.body, text);
            expectSame(loaded.doc.s, text);
            expect(loaded.doc.n).toBe(mb);
            if (mb <= 4) {
              // An update inside a transaction, read back through the query builder.
              const changed = bigText(mb * MB);
              await ds.transaction(async (m) => {
                await m.update(WireContractValue, { id }, { body: changed, doc: { s: changed, n: -mb } });
              });
              const again = await ds
                .createQueryBuilder(WireContractValue, 'v')
                .where('v.id = :id', { id })
                .getOneOrFail();
              expectSame(again.body, changed);
              expectSame(again.doc.s, changed);
            }
            await repo.delete({ id });
          }
        } finally {
          await ds.destroy();
        }
      },
      SLOW,
    );

    it(
      'Postgres event store: appends events with 1 and 16 MB payloads and reads them with readStream and readAll',
      async () => {
        const store = new PostgresEventStore(pool, { schema: 'wire_contract_es', pollMs: 20 });
        await store.setup();
        try {
          for (const mb of STACK_SIZES_MB) {
            const stream = `wire_contract-${randomUUID()}`;
            const text = bigText(mb * MB);
            const head = await store.headPosition();
            await store.appendToStream(
              stream,
              [{ type: 'BigValueRecorded', data: { s: text, mb }, metadata: { orgId: 'org-wire-contract' } }],
              {
                expectedRevision: 'no_stream',
              },
            );
            const [read] = await store.readStream(stream);
            expect(read.type).toBe('BigValueRecorded');
            expectSame(read.data.s, text);
            expect(read.data.mb).toBe(mb);
            const all = (await store.readAll({ after: head, maxCount: 10 })).filter((e) => e.streamId === stream);
            expect(all).toHaveLength(1);
            expectSame(all[0].data.s, text);
          }
        } finally {
          await store.close();
        }
      },
      SLOW,
    );

    it(
      'the CLI beside a running server: finds the database through the data directory and round-trips 1 and 16 MB',
      async () => {
        if (!target.cliUrl) return; // a server database is reached through DATABASE_URL, the paths above
        const url = target.cliUrl();
        expect(url).toBe(target.url);
        // The CLI opens the same two clients as the server: a pg Pool and a TypeORM DataSource.
        const cliPool = new Pool({ connectionString: url!, max: 10 });
        const cliDs = new DataSource({
          type: 'postgres',
          url: url!,
          entities: [WireContractValue],
          synchronize: false,
          extra: { max: 10 },
        });
        await cliDs.initialize();
        try {
          for (const mb of STACK_SIZES_MB) {
            const id = `cli-${mb}-${randomUUID()}`;
            const text = bigText(mb * MB);
            await cliPool.query('INSERT INTO wire_contract_values (id, body, doc) VALUES ($1, $2, $3)', [
              id,
              text,
              { s: text, n: mb },
            ]);
            // The server's own connection reads what the CLI wrote, and the CLI reads it back too.
            const server = await pool.query<{ body: string }>('SELECT body FROM wire_contract_values WHERE id = $1', [
              id,
            ]);
            expectSame(server.rows[0].body, text);
            const cli = await cliDs.getRepository(WireContractValue).findOneByOrFail({ id });
            expectSame(cli.body, text);
            expectSame(cli.doc.s, text);
            await cliPool.query('DELETE FROM wire_contract_values WHERE id = $1', [id]);
          }
        } finally {
          await cliDs.destroy();
          await cliPool.end();
        }
      },
      SLOW,
    );

    it(
      'after failing huge queries and clients that vanish mid-transfer, every other connection is still served',
      async () => {
        // A connection opened before the trouble (the embedded database serves one transaction at a
        // time, so it holds none open meanwhile).
        const bystander = new Client({ connectionString: target.url });
        await bystander.connect();
        await bystander.query(`INSERT INTO wire_contract_values (id, body, doc) VALUES ('bystander', 'before', '{}')`);

        // A result over PostgreSQL's 1 GB value limit fails on the server, with an error, not a dead connection.
        const failing = new Client({ connectionString: target.url });
        await failing.connect();
        await expect(failing.query(`SELECT repeat('x', $1::int) AS v`, [1024 * MB])).rejects.toThrow(
          /too large|out of memory|invalid memory/i,
        );
        // A 16 MB document that is not JSON is refused, and the same connection carries on.
        await expect(failing.query('SELECT $1::jsonb AS v', ['{' + 'x'.repeat(16 * MB)])).rejects.toThrow(/json/i);
        expect((await failing.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        await failing.end();

        // A client that sends half of a 32 MB query and disconnects.
        await new Promise<void>((resolve, reject) => {
          const half = new Client({ connectionString: target.url });
          half.on('error', () => undefined);
          half.connect().then(() => {
            const stream = (half as unknown as { connection: { stream: import('net').Socket } }).connection.stream;
            const body = Buffer.from(`SELECT '${'y'.repeat(32 * MB)}'`);
            const header = Buffer.alloc(5);
            header.write('Q', 0);
            header.writeInt32BE(body.length + 5, 1);
            stream.write(Buffer.concat([header, body.subarray(0, body.length >> 1)]), () => {
              stream.destroy();
              resolve();
            });
          }, reject);
        });

        // A client that asks for a 64 MB result and disconnects before reading it.
        const vanishing = new Client({ connectionString: target.url });
        vanishing.on('error', () => undefined);
        await vanishing.connect();
        const lost = vanishing.query(`SELECT repeat('z', $1::int) AS v`, [64 * MB]).catch(() => 'gone');
        setImmediate(() =>
          (vanishing as unknown as { connection: { stream: import('net').Socket } }).connection.stream.destroy(),
        );
        await lost;

        // The bystander's connection still works, transactions included; new connections read and write.
        await bystander.query('BEGIN');
        await bystander.query(`UPDATE wire_contract_values SET body = 'after' WHERE id = 'bystander'`);
        await bystander.query('COMMIT');
        await bystander.end();
        const fresh = new Pool({ connectionString: target.url, max: 3 });
        try {
          const text = bigText(4 * MB);
          await Promise.all(
            [0, 1, 2].map(async (i) => {
              await fresh.query('INSERT INTO wire_contract_values (id, body, doc) VALUES ($1, $2, $3)', [
                `after-${i}`,
                text,
                { s: text },
              ]);
              const r = await fresh.query<{ body: string }>('SELECT body FROM wire_contract_values WHERE id = $1', [
                `after-${i}`,
              ]);
              expectSame(r.rows[0].body, text);
            }),
          );
          expect((await fresh.query(`SELECT body FROM wire_contract_values WHERE id = 'bystander'`)).rows).toEqual([
            { body: 'after' },
          ]);
          await fresh.query(
            `DELETE FROM wire_contract_values WHERE id IN ('bystander', 'after-0', 'after-1', 'after-2')`,
          );
        } finally {
          await fresh.end();
        }
      },
      SLOW,
    );
  });
}

largeValuesContract('embedded PGlite over the wire protocol, on disk, published to the CLI', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-wire-'));
  const pg: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg') });
  publishEmbeddedDatabase(dataDir, pg.url);
  return {
    url: pg.url,
    cliUrl: () => runningEmbeddedDatabase(dataDir),
    async close() {
      await pg.stop();
      unpublishEmbeddedDatabase(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

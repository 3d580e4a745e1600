import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { RecordedEvent } from '../events';

/** The part of a read-model projection (projections/runner/projection.ts) the helper drives. */
export interface ProjectionUnderTest {
  readonly name: string;
  readonly handles: readonly string[];
  readonly tables: readonly string[];
  setup(manager: EntityManager): Promise<void>;
  apply(event: RecordedEvent, manager: EntityManager): Promise<void>;
  /** The runner hands a projection that has it whole batches (see projections/runner/projection.ts). */
  applyBatch?(events: RecordedEvent[], manager: EntityManager): Promise<void>;
}

export type Row = Record<string, unknown>;
/** Every row of each of the projection's tables, in primary-key order (values as `pg` returns them). */
export type ProjectedRows = Record<string, Row[]>;

export interface ProjectionTestDatabase {
  /**
   * Applies the events the projection handles (in order, as the runner does) to its tables in a
   * fresh schema and snapshots every row. Then it checks idempotency twice over and fails the test on
   * any difference: re-applying the whole log on top gives the same rows, and a fresh schema that
   * receives each event twice in a row gives the same rows; a projection with `applyBatch` gives the
   * same rows again from the whole log as one batch, applied twice. Returns the rows of the first pass.
   */
  project(projection: ProjectionUnderTest, events: RecordedEvent[]): Promise<ProjectedRows>;
  /** The spec file's database (for `DataSource`-based readers); valid between beforeAll and afterAll. */
  readonly dataSource: DataSource;
}

const quote = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

/**
 * A fresh database on the machine's PostgreSQL for one spec file (created in `beforeAll`, dropped in
 * `afterAll`); each `project` call works in its own schemas, dropped afterwards. Call it at the top of
 * a `describe`.
 *
 * typeorm and the database helper are loaded on first use, so specs that import only the decider
 * helpers from `@larder/kernel/testing` stay free of them.
 */
export function projectionTestDatabase(): ProjectionTestDatabase {
  let ds: DataSource | undefined;
  let drop: (() => Promise<void>) | undefined;
  let schemas = 0;

  beforeAll(async () => {
    const { DataSource } = await import('typeorm');
    const { createServerTestDatabase } = await import('@larder/database/testing/test-databases');
    const db = await createServerTestDatabase('larder_projection');
    drop = () => db.drop();
    ds = new DataSource({ type: 'postgres', url: db.url, entities: [], poolSize: 2 });
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await drop?.();
  });

  async function inFreshSchema<T>(work: (qr: QueryRunner) => Promise<T>): Promise<T> {
    if (!ds) throw new Error('projectionTestDatabase(): use project() inside a test, after beforeAll');
    const schema = `projection_${++schemas}`;
    const qr = ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query(`CREATE SCHEMA ${quote(schema)}`);
      // Only this schema: extensions a setup creates (pg_trgm) land here too and go with it.
      await qr.query(`SET search_path TO ${quote(schema)}`);
      return await work(qr);
    } finally {
      await qr.query(`SET search_path TO DEFAULT`).catch(() => undefined);
      await qr.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`).catch(() => undefined);
      await qr.release();
    }
  }

  async function applyAll(
    p: ProjectionUnderTest,
    events: RecordedEvent[],
    qr: QueryRunner,
    pass: string,
  ): Promise<void> {
    await qr.startTransaction();
    try {
      for (const e of events) {
        try {
          await p.apply(e, qr.manager);
        } catch (err) {
          const where = `${e.type} (${e.streamId}@${e.revision}, log #${e.position.prepare})`;
          throw new Error(`projection ${p.name} failed on ${where} during ${pass}: ${(err as Error).message}`, {
            cause: err,
          });
        }
      }
      await qr.commitTransaction();
    } catch (err) {
      await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  }

  async function snapshot(p: ProjectionUnderTest, qr: QueryRunner): Promise<ProjectedRows> {
    const rows: ProjectedRows = {};
    for (const table of p.tables) {
      const keys = (await qr.query(
        `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
          WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        [quote(table)],
      )) as Array<{ attname: string }>;
      const order = [...keys.map((k) => quote(k.attname)), `t::text`].join(', ');
      rows[table] = (await qr.query(`SELECT * FROM ${quote(table)} t ORDER BY ${order}`)) as Row[];
    }
    return rows;
  }

  function sameRows(p: ProjectionUnderTest, what: string, actual: ProjectedRows, expected: ProjectedRows): void {
    try {
      expect(actual).toEqual(expected);
    } catch (err) {
      (err as Error).message =
        `projection ${p.name} is not idempotent: ${what} (expected: rows after one pass)\n${(err as Error).message}`;
      throw err;
    }
  }

  async function setup(p: ProjectionUnderTest, qr: QueryRunner): Promise<void> {
    await p.setup(qr.manager);
    await p.setup(qr.manager); // setup is idempotent (every start runs it)
  }

  return {
    get dataSource(): DataSource {
      if (!ds) throw new Error('projectionTestDatabase(): the database exists only between beforeAll and afterAll');
      return ds;
    },
    async project(p, events) {
      const handled = events.filter((e) => p.handles.includes(e.type));
      const first = await inFreshSchema(async (qr) => {
        await setup(p, qr);
        await applyAll(p, handled, qr, 'the first pass');
        const rows = await snapshot(p, qr);
        await applyAll(p, handled, qr, 're-applying the whole log');
        sameRows(p, 're-applying the whole log on top changed its rows', await snapshot(p, qr), rows);
        return rows;
      });
      await inFreshSchema(async (qr) => {
        await setup(p, qr);
        await applyAll(
          p,
          handled.flatMap((e) => [e, e]),
          qr,
          'applying each event twice',
        );
        sameRows(
          p,
          'applying each event twice in a row gave other rows than applying it once',
          await snapshot(p, qr),
          first,
        );
      });
      const batch = p.applyBatch?.bind(p);
      if (batch) {
        // the runner's path: the whole log as one batch, then the same batch again
        await inFreshSchema(async (qr) => {
          await setup(p, qr);
          await qr.startTransaction();
          await batch(handled, qr.manager);
          await batch(handled, qr.manager);
          await qr.commitTransaction();
          sameRows(
            p,
            'applying the log as one batch (twice) gave other rows than applying it event by event',
            await snapshot(p, qr),
            first,
          );
        });
      }
      return first;
    },
  };
}

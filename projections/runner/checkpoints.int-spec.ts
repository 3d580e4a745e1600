import { randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { START } from '@larder/kernel';
import { createServerTestDatabase, TestDatabase } from '../../libs/database/src/testing/test-databases';
import { moveCheckpoint, readCheckpoint, setupCheckpoints, upsertCheckpoint } from './checkpoints';

/** Moving a checkpoint past events a loop does not handle: one statement, only from where the loop left it. */
describe('moveCheckpoint', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const name = (what: string) => `${what}-${randomBytes(4).toString('hex')}`;
  const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) });

  beforeAll(async () => {
    db = await createServerTestDatabase();
    ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
    await setupCheckpoints(ds);
  });
  afterAll(async () => {
    await ds.destroy();
    await db.drop();
  });

  it('moves a checkpoint that stands where expected (either of two positions)', async () => {
    const n = name('a');
    await upsertCheckpoint(ds, n, 'projection', 2, at(10));
    expect(await moveCheckpoint(ds, n, 'projection', 2, [at(10)], at(20))).toBeNull();
    expect(await readCheckpoint(ds, n)).toEqual(at(20));
    expect(await moveCheckpoint(ds, n, 'projection', 2, [at(5), at(20)], at(30))).toBeNull();
    expect(await readCheckpoint(ds, n)).toEqual(at(30));
  });

  it('leaves a checkpoint another runner moved, and answers where it stands', async () => {
    const n = name('b');
    await upsertCheckpoint(ds, n, 'reactor', 1, at(40));
    expect(await moveCheckpoint(ds, n, 'reactor', 1, [at(10)], at(50))).toEqual(at(40));
    expect(await readCheckpoint(ds, n)).toEqual(at(40));
  });

  it('creates a missing checkpoint only when the loop started from the beginning', async () => {
    const fresh = name('c');
    expect(await moveCheckpoint(ds, fresh, 'projection', 3, [START], at(7))).toBeNull();
    expect(await readCheckpoint(ds, fresh)).toEqual(at(7));
    const [row] = await ds.query(`SELECT kind, version FROM larder_checkpoints WHERE name = $1`, [fresh]);
    expect(row).toEqual({ kind: 'projection', version: 3 });
    const gone = name('d');
    expect(await moveCheckpoint(ds, gone, 'projection', 3, [at(9)], at(12))).toEqual(START);
    expect((await ds.query(`SELECT 1 FROM larder_checkpoints WHERE name = $1`, [gone])).length).toBe(0);
  });
});

import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteReadWorker } from './sqlite-read-worker';
import { badProgram, countProgram, probe as probeProgram, started } from '../testing/read-programs';

const programs = require.resolve('../testing/read-programs');
const count = { module: programs, name: 'countProgram', fn: countProgram };

describe('embedded chunk index: read worker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-read-worker-'));
  const path = join(dir, 'r.sqlite');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE t (x INTEGER)`);
  const worker = new SqliteReadWorker(path, db, { count });
  afterAll(async () => {
    await worker.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a read beside the event loop: a timer fires while a 300 ms read runs', async () => {
    await worker.run('count', { spinMs: 0 }); // started
    let fired = 0;
    const timer = new Promise<void>((r) => setTimeout(() => r(void (fired = Date.now())), 20));
    const read = worker.run<{ n: number }>('count', { spinMs: 300 }).then(() => Date.now());
    const [, done] = await Promise.all([timer, read]);
    expect(fired).toBeLessThan(done - 150);
  });

  it('sees every write committed before the read, and keeps its state between runs', async () => {
    const before = await worker.run<{ n: number; calls: number }>('count', { spinMs: 0 });
    db.prepare(`INSERT INTO t (x) VALUES (1), (2), (3)`).run();
    const after = await worker.run<{ n: number; calls: number }>('count', { spinMs: 0 });
    expect(after.n).toBe(before.n + 3);
    expect(after.calls).toBe(before.calls + 1);
  });

  it('reports a failing read as an error and goes on', async () => {
    const bad = new SqliteReadWorker(path, db, { bad: { module: programs, name: 'badProgram', fn: badProgram } });
    await expect(bad.run('bad', {})).rejects.toThrow(/no such table/);
    await expect(bad.run('bad', {})).rejects.toThrow(/no such table/);
    await bad.close();
  });

  describe('a background program', () => {
    // (in a module, as the lexical preload is: `tick` runs in slices while it returns true, `probe` reads the state they share)
    const module = programs;
    const probe = { module, name: 'probe', fn: probeProgram };
    const withBackground = () =>
      new SqliteReadWorker(path, db, { probe }, true, { module, name: 'tick', input: {}, state: 'probe' });
    const until = async (w: SqliteReadWorker, ticks: number) => {
      for (let i = 0; i < 200 && (await w.run<number>('probe', {})) < ticks; i++)
        await new Promise((r) => setTimeout(r, 10));
      return w.run<number>('probe', {});
    };

    it('runs in slices from the worker start, while it returns true', async () => {
      const w = withBackground();
      w.warmUp();
      await expect(until(w, 3)).resolves.toBe(3);
      await w.close();
    });

    it('lets a query in after the step under way, not after the whole slice', async () => {
      const w = new SqliteReadWorker(path, db, { probe }, true, { module, name: 'long', input: {}, state: 'probe' });
      w.warmUp();
      await until(w, 2);
      const waits: number[] = [];
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 37));
        const t = Date.now();
        await w.run('probe', {});
        waits.push(Date.now() - t);
      }
      // a slice runs up to 300 ms: without the check, queries that come during one wait for most of it
      expect(Math.max(...waits)).toBeLessThan(100);
      await w.close();
    });

    it('deferred, waits for startIdle, then runs', async () => {
      const w = withBackground();
      w.warmUp(60_000);
      await w.run('probe', {});
      await new Promise((r) => setTimeout(r, 200));
      await expect(w.run('probe', {})).resolves.toBe(0);
      w.startIdle();
      await expect(until(w, 3)).resolves.toBe(3);
      await w.close();
    });

    it('deferred, begins by itself once the wait is over', async () => {
      const w = withBackground();
      w.warmUp(150);
      await expect(until(w, 3)).resolves.toBe(3);
      await w.close();
    });
  });

  it('runs its start program once, before its first program; one that fails leaves it answering', async () => {
    const runs = { started: { module: programs, name: 'started', fn: started } };
    const w = new SqliteReadWorker(path, db, runs, true, null, undefined, { module: programs, name: 'start' });
    await expect(w.run('started', {})).resolves.toBe(1);
    await expect(w.run('started', {})).resolves.toBe(1);
    await w.close();
    const failing = new SqliteReadWorker(path, db, { ...runs, count }, true, null, undefined, {
      module: programs,
      name: 'failingStart',
    });
    await expect(failing.run('started', {})).resolves.toBe(0);
    await expect(failing.run('count', { spinMs: 0 })).resolves.toMatchObject({ calls: 1 });
    await failing.close();
  });

  it('runs on the caller connection for an in-memory database', async () => {
    const mem = new Database(':memory:');
    mem.exec(`CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)`);
    const local = new SqliteReadWorker(':memory:', mem, { count });
    await expect(local.run('count', { spinMs: 0 })).resolves.toEqual({ n: 1, calls: 1 });
    await local.close();
    mem.close();
  });
});

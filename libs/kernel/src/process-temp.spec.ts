import { spawn } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { hostname, tmpdir } from 'os';
import { join } from 'path';
import { ProcessTempDirs } from './process-temp';

describe('ProcessTempDirs', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'larder-temp-spec-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const leftover = (name: string, ageMs = 0): string => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'part'), 'x');
    if (ageMs) {
      const t = new Date(Date.now() - ageMs);
      utimesSync(dir, t, t);
    }
    return dir;
  };

  it('removes a dead process’s directory at once and keeps its own and a live one’s', async () => {
    const temp = new ProcessTempDirs(root);
    const own = await temp.ensure();
    writeFileSync(join(own, 'mine'), 'x');
    // a pid that ran and is gone
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
    const dead = leftover(`${hostname()}.${deadPid}.0badc0de`);
    // this pid with another token: an earlier process that had the same pid
    const reused = leftover(`${hostname()}.${process.pid}.00000000`);
    // the parent process runs: its directory stays while it is fresh
    const live = leftover(`${hostname()}.${process.ppid}.12345678`);
    expect(await temp.sweep(15 * 60_000)).toBe(2);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(reused)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(join(own, 'mine'))).toBe(true);
  });

  it('removes another host’s or an unnamed directory only once untouched for the given age', async () => {
    const temp = new ProcessTempDirs(root);
    const fresh = leftover('elsewhere.1.abcdef12');
    const stale = leftover('elsewhere.2.abcdef12', 20 * 60_000);
    const unnamed = leftover('something', 20 * 60_000);
    expect(await temp.sweep(15 * 60_000)).toBe(2);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(unnamed)).toBe(false);
  });

  it('answers 0 when the root does not exist', async () => {
    expect(await new ProcessTempDirs(join(root, 'missing')).sweep(1)).toBe(0);
  });
});

import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { blobStorageContract } from '../testing/blob-storage.contract';
import { LocalDiskBlobStorage } from './local-disk.blob-storage';

blobStorageContract('local disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-blobs-'));
  return { storage: new LocalDiskBlobStorage(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

describe('local disk: temporary files of interrupted writes', () => {
  it('sweeps temporary files untouched for the given age, and keeps fresh ones (a write in progress)', async () => {
    const { utimesSync, writeFileSync, existsSync, mkdirSync } = await import('fs');
    const dir = mkdtempSync(join(tmpdir(), 'larder-blobs-'));
    try {
      const storage = new LocalDiskBlobStorage(dir);
      mkdirSync(join(dir, 'tmp'));
      const stale = join(dir, 'tmp', 'crashed.part');
      const fresh = join(dir, 'tmp', 'writing.part');
      writeFileSync(stale, 'left by kill -9');
      writeFileSync(fresh, 'still being written');
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(stale, hourAgo, hourAgo);
      expect(await storage.sweepTemporary(15 * 60_000)).toBe(1);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      expect(await new LocalDiskBlobStorage(join(dir, 'none')).sweepTemporary(0)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes at once the temporary files of a process of this host that is gone; keeps a running one’s and another host’s fresh ones', async () => {
    const { utimesSync, writeFileSync, existsSync, mkdirSync } = await import('fs');
    const { hostname } = await import('os');
    const { spawnSync } = await import('child_process');
    const { Readable } = await import('stream');
    const dir = mkdtempSync(join(tmpdir(), 'larder-blobs-'));
    try {
      const storage = new LocalDiskBlobStorage(dir);
      await storage.put('a/b', Readable.from([Buffer.from('x')]));
      const dead = spawnSync(process.execPath, ['-e', '']).pid;
      const tmp = (name: string) => {
        mkdirSync(join(dir, 'tmp', name), { recursive: true });
        writeFileSync(join(dir, 'tmp', name, 'a.part'), 'part of a write');
        return join(dir, 'tmp', name);
      };
      const killed = tmp(`${hostname()}.${dead}.0123abcd`);
      const sameHostRunning = tmp(`${hostname()}.${process.ppid}.0123abcd`);
      const samePidEarlier = tmp(`${hostname()}.${process.pid}.0123abcd`);
      const otherHost = tmp(`elsewhere.${dead}.0123abcd`);
      const otherHostStale = tmp(`elsewhere-too.${dead}.0123abcd`);
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(otherHostStale, hourAgo, hourAgo);
      expect(await storage.sweepTemporary(15 * 60_000)).toBe(3);
      expect([killed, samePidEarlier, otherHostStale].filter(existsSync)).toEqual([]);
      expect([sameHostRunning, otherHost].filter(existsSync)).toEqual([sameHostRunning, otherHost]);
      // untouched for the given age, even a running process's directory goes (its pid may be another's); this process's own stays
      await storage.put('a/c', Readable.from([Buffer.from('y')]));
      expect(await storage.sweepTemporary(0)).toBe(2);
      expect(await storage.size('a/c')).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

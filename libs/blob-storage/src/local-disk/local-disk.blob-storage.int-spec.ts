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
});

import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { blobStorageContract } from '../testing/blob-storage.contract';
import { LocalDiskBlobStorage } from './local-disk.blob-storage';

blobStorageContract('local disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-blobs-'));
  return { storage: new LocalDiskBlobStorage(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

import { randomBytes } from 'crypto';
import { blobStorageContract } from '../testing/blob-storage.contract';
import { startS3TestServer } from '../testing/s3-test-server';
import { S3BlobStorage } from './s3.blob-storage';

blobStorageContract(
  'S3 (s3rver on loopback)',
  async () => {
    const s3 = await startS3TestServer();
    const storage = new S3BlobStorage({
      bucket: `larder-${randomBytes(4).toString('hex')}`,
      endpoint: s3.endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    await storage.ensureBucket();
    return {
      storage,
      close: async () => {
        storage.client.destroy();
        await s3.close();
      },
    };
  },
  { listParts: false /* s3rver has neither ListParts nor AbortMultipartUpload */ },
);

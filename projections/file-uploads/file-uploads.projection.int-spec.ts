import { UploadCommand, uploadDecider } from '@larder/files/multipart-upload.aggregate';
import { fileUploadStream } from '@larder/files/streams';
import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { FileUploadsProjection } from './file-uploads.projection';
import { FILE_UPLOADS_TABLE } from './file-uploads.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const upload = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('file-uploads projection', () => {
  const pg = projectionTestDatabase();

  it('tracks each upload’s parts and its end: completed, aborted, expired or still in progress', async () => {
    const log = new TestEventLog();
    const run = (c: UploadCommand, orgId = ORG) =>
      log.decide(uploadDecider, fileUploadStream(c.uploadId), c, { orgId, actor: 'key' });
    const create = (n: number, organizationId = ORG, partCount = 2) =>
      run(
        {
          type: 'CreateMultipartUpload',
          uploadId: upload(n),
          organizationId,
          filename: `big${n}.bin`,
          fileSize: 10,
          mimeType: 'application/octet-stream',
          partCount,
          blobKey: `files/u${n}`,
          storageUploadId: `s3-${n}`,
          now: t(n),
          expiresAt: t(86_400),
        },
        organizationId,
      );
    const part = (n: number, partNumber: number, etag: string, bytes: number, s: number, orgId = ORG) =>
      run({ type: 'ReceivePart', uploadId: upload(n), partNumber, etag, bytes, now: t(s) }, orgId);

    create(1);
    part(1, 1, '"a"', 5, 10);
    part(1, 2, '"b"', 4, 11);
    part(1, 2, '"b2"', 5, 12); // the client sent part 2 again: the later one counts
    run({
      type: 'CompleteMultipartUpload',
      uploadId: upload(1),
      organizationId: ORG,
      fileId: 'f1',
      parts: [
        { partNumber: 1, etag: '"a"' },
        { partNumber: 2, etag: '"b2"' },
      ],
      verifyLocalParts: true,
      now: t(13),
    });
    create(2);
    part(2, 1, '"c"', 5, 20);
    run({ type: 'AbortMultipartUpload', uploadId: upload(2), organizationId: ORG, reason: 'aborted', now: t(21) });
    create(3, OTHER_ORG, 3);
    part(3, 3, '"z"', 2, 30, OTHER_ORG);
    create(4);
    run(
      { type: 'AbortMultipartUpload', uploadId: upload(4), organizationId: null, reason: 'expired', now: t(86_401) },
      ORG,
    );

    const rows = await pg.project(new FileUploadsProjection(), log.events);
    const common = { file_size: '10', mime_type: 'application/octet-stream', expires_at: t(86_400) };
    expect(rows[FILE_UPLOADS_TABLE]).toEqual([
      {
        ...common,
        id: upload(1),
        organization_id: ORG,
        filename: 'big1.bin',
        part_count: 2,
        blob_key: 'files/u1',
        storage_upload_id: 's3-1',
        status: 'completed',
        parts: { 1: { etag: '"a"', bytes: 5 }, 2: { etag: '"b2"', bytes: 5 } },
        created_at: t(1),
        revision: '4',
      },
      {
        ...common,
        id: upload(2),
        organization_id: ORG,
        filename: 'big2.bin',
        part_count: 2,
        blob_key: 'files/u2',
        storage_upload_id: 's3-2',
        status: 'aborted',
        parts: { 1: { etag: '"c"', bytes: 5 } },
        created_at: t(2),
        revision: '2',
      },
      {
        ...common,
        id: upload(3),
        organization_id: OTHER_ORG,
        filename: 'big3.bin',
        part_count: 3,
        blob_key: 'files/u3',
        storage_upload_id: 's3-3',
        status: 'in_progress',
        parts: { 3: { etag: '"z"', bytes: 2 } },
        created_at: t(3),
        revision: '1',
      },
      {
        ...common,
        id: upload(4),
        organization_id: ORG,
        filename: 'big4.bin',
        part_count: 2,
        blob_key: 'files/u4',
        storage_upload_id: 's3-4',
        status: 'aborted',
        parts: {},
        created_at: t(4),
        revision: '1',
      },
    ]);
  });
});

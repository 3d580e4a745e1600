import { FileCommand, fileDecider } from '@larder/files/file.aggregate';
import { fileStream } from '@larder/files/streams';
import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { FilesProjection } from './files.projection';
import { FILES_TABLE } from './files.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const file = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('files projection', () => {
  const pg = projectionTestDatabase();

  it('one row per live file at its latest version, its description kept by a replace without one; deleted files gone', async () => {
    const log = new TestEventLog();
    const run = (c: FileCommand) =>
      log.decide(fileDecider, fileStream(c.fileId), c, { orgId: c.organizationId, actor: 'key' });
    const content = (n: number, v = 1) => ({
      filename: `doc${n}-v${v}.txt`,
      mimeType: 'text/plain',
      bytes: 100 * n + v,
      sha256: `sha-${n}-${v}`,
      blobKey: `files/${n}/${v}`,
    });

    run({
      type: 'UploadFile',
      fileId: file(1),
      organizationId: ORG,
      ...content(1),
      description: 'pantry notes',
      now: t(1),
    });
    run({
      type: 'UploadFile',
      fileId: file(2),
      organizationId: ORG,
      ...content(2),
      description: 'gone soon',
      now: t(2),
    });
    run({
      type: 'UploadFile',
      fileId: file(3),
      organizationId: OTHER_ORG,
      ...content(3),
      uploadId: 'upload-3',
      now: t(3),
    });
    run({
      type: 'ReplaceFile',
      fileId: file(1),
      organizationId: ORG,
      ...content(1, 2),
      filename: 'guide.md',
      mimeType: 'text/markdown',
      description: 'jam guide',
      now: t(10),
    });
    run({
      type: 'ReplaceFile',
      fileId: file(1),
      organizationId: ORG,
      ...content(1, 3),
      filename: 'guide.md',
      mimeType: 'text/markdown',
      now: t(20),
    });
    run({
      type: 'ReplaceFile',
      fileId: file(3),
      organizationId: OTHER_ORG,
      ...content(3, 2),
      description: null,
      now: t(25),
    });
    run({ type: 'DeleteFile', fileId: file(2), organizationId: ORG, now: t(30) });

    const rows = await pg.project(new FilesProjection(), log.events);
    expect(rows[FILES_TABLE]).toEqual([
      {
        id: file(1),
        organization_id: ORG,
        filename: 'guide.md',
        mime_type: 'text/markdown',
        bytes: '103',
        sha256: 'sha-1-3',
        version: 3,
        blob_key: 'files/1/3',
        description: 'jam guide',
        created_at: t(1),
        updated_at: t(20),
        revision: '2',
        purpose: null,
      },
      {
        id: file(3),
        organization_id: OTHER_ORG,
        filename: 'doc3-v2.txt',
        mime_type: 'text/plain',
        bytes: '302',
        sha256: 'sha-3-2',
        version: 2,
        blob_key: 'files/3/2',
        description: null,
        created_at: t(3),
        updated_at: t(25),
        revision: '1',
        purpose: null,
      },
    ]);
  });
});

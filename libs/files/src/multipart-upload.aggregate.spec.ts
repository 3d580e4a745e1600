import { BadRequestError, ConflictError, NotFoundError } from '@larder/kernel';
import { uploadDecider, UploadCommand } from './multipart-upload.aggregate';
import { MultipartUploadEvent } from './events';
import { fileDecider } from './file.aggregate';

const ORG = 'org-1';
const now = new Date('2026-01-01T00:00:00Z');
const created: MultipartUploadEvent = {
  type: 'MultipartUploadCreated',
  data: {
    uploadId: 'u',
    organizationId: ORG,
    filename: 'f',
    fileSize: 10,
    mimeType: 'text/plain',
    partCount: 2,
    blobKey: 'k',
    storageUploadId: 's',
    createdAt: now.toISOString(),
    expiresAt: now.toISOString(),
  },
};
const part = (n: number, etag: string, bytes: number): MultipartUploadEvent => ({
  type: 'MultipartUploadPartReceived',
  data: { uploadId: 'u', partNumber: n, etag, bytes, at: now.toISOString() },
});
const given = (events: MultipartUploadEvent[]) => {
  const s = events.reduce(uploadDecider.evolve, uploadDecider.initialState());
  return (c: UploadCommand) => () => uploadDecider.decide(c, s);
};
const complete = (parts: Array<{ partNumber: number; etag: string }>): UploadCommand => ({
  type: 'CompleteMultipartUpload',
  uploadId: 'u',
  organizationId: ORG,
  fileId: 'f',
  parts,
  verifyLocalParts: true,
  now,
});

describe('multipart upload decider', () => {
  it('completes when every part is listed with its ETag and the sizes add up', () => {
    expect(
      given([created, part(1, '"a"', 5), part(2, '"b"', 5)])(
        complete([
          { partNumber: 1, etag: '"a"' },
          { partNumber: 2, etag: '"b"' },
        ]),
      )(),
    ).toEqual([{ type: 'MultipartUploadCompleted', data: { uploadId: 'u', fileId: 'f', at: now.toISOString() } }]);
  });
  it('refuses a missing part, a wrong ETag, a duplicate and a size mismatch', () => {
    const when = given([created, part(1, '"a"', 5), part(2, '"b"', 4)]);
    expect(when(complete([{ partNumber: 1, etag: '"a"' }]))).toThrow(/missing part_number 2/);
    expect(
      when(
        complete([
          { partNumber: 1, etag: '"a"' },
          { partNumber: 2, etag: '"x"' },
        ]),
      ),
    ).toThrow(/ETag of part 2/);
    expect(
      when(
        complete([
          { partNumber: 1, etag: '"a"' },
          { partNumber: 1, etag: '"a"' },
          { partNumber: 2, etag: '"b"' },
        ]),
      ),
    ).toThrow(/more than once/);
    expect(
      when(
        complete([
          { partNumber: 1, etag: '"a"' },
          { partNumber: 2, etag: '"b"' },
        ]),
      ),
    ).toThrow(BadRequestError);
  });
  it('accepts parts only within part_count and only while in progress', () => {
    expect(given([created])({ type: 'ReceivePart', uploadId: 'u', partNumber: 3, etag: 'e', bytes: 1, now })).toThrow(
      BadRequestError,
    );
    const aborted: MultipartUploadEvent = {
      type: 'MultipartUploadAborted',
      data: { uploadId: 'u', reason: 'aborted', at: now.toISOString() },
    };
    expect(
      given([created, aborted])({ type: 'ReceivePart', uploadId: 'u', partNumber: 1, etag: 'e', bytes: 1, now }),
    ).toThrow(NotFoundError);
    expect(given([created, aborted])(complete([]))).toThrow(ConflictError);
    expect(
      given([created, aborted])({
        type: 'AbortMultipartUpload',
        uploadId: 'u',
        organizationId: ORG,
        reason: 'aborted',
        now,
      })(),
    ).toEqual([]);
  });
  it('hides another organization’s upload', () => {
    expect(
      given([created])({
        type: 'AbortMultipartUpload',
        uploadId: 'u',
        organizationId: 'other',
        reason: 'aborted',
        now,
      }),
    ).toThrow(NotFoundError);
  });
});

describe('file decider', () => {
  const content = { filename: 'a.txt', mimeType: 'text/plain', bytes: 3, sha256: 'h', blobKey: 'k1' };
  it('uploads at version 1, replaces at version + 1, deletes with the blob to drop', () => {
    const up = fileDecider.decide(
      { type: 'UploadFile', fileId: 'f', organizationId: ORG, now, ...content },
      fileDecider.initialState(),
    );
    expect(up[0]).toMatchObject({ type: 'FileUploaded', data: { version: 1 } });
    const s1 = up.reduce(fileDecider.evolve, fileDecider.initialState());
    const rep = fileDecider.decide(
      { type: 'ReplaceFile', fileId: 'f', organizationId: ORG, now, ...content, blobKey: 'k2' },
      s1,
    );
    expect(rep[0]).toMatchObject({ type: 'FileReplaced', data: { version: 2, blobKey: 'k2' } });
    const s2 = rep.reduce(fileDecider.evolve, s1);
    expect(fileDecider.decide({ type: 'DeleteFile', fileId: 'f', organizationId: ORG, now }, s2)).toEqual([
      { type: 'FileDeleted', data: { fileId: 'f', organizationId: ORG, blobKey: 'k2', at: now.toISOString() } },
    ]);
    expect(() => fileDecider.decide({ type: 'DeleteFile', fileId: 'f', organizationId: 'other', now }, s2)).toThrow(
      NotFoundError,
    );
  });
});

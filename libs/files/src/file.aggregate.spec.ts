import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { FileCommand, fileDecider } from './file.aggregate';
import { FileEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const FILE = '22222222-2222-4222-8222-222222222222';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();

const v1 = { filename: 'a.txt', mimeType: 'text/plain', bytes: 3, sha256: 'h1', blobKey: 'files/k1' };
const v2 = { filename: 'b.md', mimeType: 'text/markdown', bytes: 5, sha256: 'h2', blobKey: 'files/k2' };
const uploaded: FileEvent = {
  type: 'FileUploaded',
  data: { fileId: FILE, organizationId: ORG, ...v1, version: 1, at: at(0) },
};
const replaced: FileEvent = { type: 'FileReplaced', data: { fileId: FILE, ...v2, version: 2, at: at(1) } };
const deleted = (blobKey: string): FileEvent => ({
  type: 'FileDeleted',
  data: { fileId: FILE, organizationId: ORG, blobKey, at: at(2) },
});

const upload = (extra: Partial<Extract<FileCommand, { type: 'UploadFile' }>> = {}): FileCommand => ({
  type: 'UploadFile',
  fileId: FILE,
  organizationId: ORG,
  ...v1,
  now: t(0),
  ...extra,
});
const replace = (organizationId = ORG): FileCommand => ({
  type: 'ReplaceFile',
  fileId: FILE,
  organizationId,
  ...v2,
  now: t(1),
});
const remove = (organizationId = ORG): FileCommand => ({ type: 'DeleteFile', fileId: FILE, organizationId, now: t(2) });

describe('file decider', () => {
  it('uploads a file at version 1', () => {
    const { state } = given(fileDecider).when(upload()).then(uploaded);
    expect(state).toMatchObject({ status: 'present', organizationId: ORG, version: 1, blobKey: 'files/k1' });
  });

  it('records the multipart upload a file came from', () => {
    given(fileDecider)
      .when(upload({ uploadId: 'u1' }))
      .then({ type: 'FileUploaded', data: { ...uploaded.data, uploadId: 'u1' } });
  });

  it('refuses to upload an id that exists or existed', () => {
    given(fileDecider, uploaded).when(upload()).thenThrows(ConflictError, `file ${FILE} already exists`);
    given(fileDecider, uploaded, deleted('files/k1')).when(upload()).thenThrows(ConflictError);
  });

  it('replaces content at the next version', () => {
    const { state } = given(fileDecider, uploaded).when(replace()).then(replaced);
    expect(state).toMatchObject({ version: 2, blobKey: 'files/k2' });
    given(fileDecider, uploaded, replaced)
      .when(replace())
      .thenMatches({ type: 'FileReplaced', data: { version: 3 } });
  });

  it('deletes with the current blob to drop', () => {
    given(fileDecider, uploaded).when(remove()).then(deleted('files/k1'));
    const { state } = given(fileDecider, uploaded, replaced).when(remove()).then(deleted('files/k2'));
    expect(state.status).toBe('deleted');
  });

  it('a missing, deleted or other organization’s file is not found', () => {
    for (const c of [replace(), remove()])
      given(fileDecider).when(c).thenThrows(NotFoundError, `File ${FILE} not found`);
    for (const c of [replace(), remove()])
      given(fileDecider, uploaded, deleted('files/k1')).when(c).thenThrows(NotFoundError);
    for (const c of [replace(OTHER_ORG), remove(OTHER_ORG)])
      given(fileDecider, uploaded).when(c).thenThrows(NotFoundError);
  });
});

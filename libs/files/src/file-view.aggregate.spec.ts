import { ConflictError, NotFoundError } from '@larder/kernel';
import { FileEvent } from './events';
import { FileCommand, fileDecider, fileView } from './file.aggregate';

const ORG = 'org-1';
const now = new Date('2026-01-01T00:00:00Z');
const later = new Date('2026-01-02T00:00:00Z');
const content = (blobKey: string) => ({ filename: 'a.txt', mimeType: 'text/plain', bytes: 3, sha256: 'abc', blobKey });
const uploaded: FileEvent = {
  type: 'FileUploaded',
  data: { fileId: 'f', organizationId: ORG, ...content('k1'), version: 1, at: now.toISOString() },
};
const replaced: FileEvent = {
  type: 'FileReplaced',
  data: {
    fileId: 'f',
    ...content('k2'),
    filename: 'b.md',
    mimeType: 'text/markdown',
    version: 2,
    at: later.toISOString(),
  },
};
const deleted: FileEvent = {
  type: 'FileDeleted',
  data: { fileId: 'f', organizationId: ORG, blobKey: 'k2', at: later.toISOString() },
};
const given = (events: FileEvent[]) => events.reduce(fileDecider.evolve, fileDecider.initialState());
const when = (events: FileEvent[], c: FileCommand) => () => fileDecider.decide(c, given(events));

describe('file decider', () => {
  it('uploads once; a second upload of the id conflicts', () => {
    const upload: FileCommand = { type: 'UploadFile', fileId: 'f', organizationId: ORG, now, ...content('k1') };
    expect(when([], upload)()).toEqual([uploaded]);
    expect(when([uploaded], upload)).toThrow(ConflictError);
  });

  it('replaces with version + 1 and remembers the content it superseded', () => {
    expect(
      when([uploaded], {
        type: 'ReplaceFile',
        fileId: 'f',
        organizationId: ORG,
        now: later,
        ...content('k2'),
        filename: 'b.md',
        mimeType: 'text/markdown',
      })(),
    ).toEqual([replaced]);
    expect(given([uploaded, replaced])).toMatchObject({ blobKey: 'k2', replacedBlobKey: 'k1', version: 2 });
  });

  it('deletes with the current content key; another organization and a deleted file are not found', () => {
    expect(when([uploaded, replaced], { type: 'DeleteFile', fileId: 'f', organizationId: ORG, now: later })()).toEqual([
      deleted,
    ]);
    expect(when([uploaded], { type: 'DeleteFile', fileId: 'f', organizationId: 'org-2', now })).toThrow(NotFoundError);
    expect(when([uploaded, deleted], { type: 'DeleteFile', fileId: 'f', organizationId: ORG, now })).toThrow(
      NotFoundError,
    );
    expect(when([], { type: 'ReplaceFile', fileId: 'f', organizationId: ORG, now, ...content('k3') })).toThrow(
      NotFoundError,
    );
  });

  it('the decided state holds what the file object shows, as the files read model would', () => {
    expect(fileView('f', given([uploaded, replaced]))).toEqual({
      id: 'f',
      filename: 'b.md',
      bytes: 3,
      mimeType: 'text/markdown',
      version: 2,
      createdAt: now,
      updatedAt: later,
      purpose: null,
    });
  });
});

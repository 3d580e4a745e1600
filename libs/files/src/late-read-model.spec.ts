import { Writes } from '@larder/event-store';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Readable } from 'stream';
import {
  ConsistencyTimeoutError,
  NewEvent,
  RandomIdGenerator,
  ReadModelConsistency,
  SystemClock,
  withReadLagReporting,
} from '@larder/kernel';
import { AppendResult, ExpectedRevision } from '@larder/event-store';
import { InMemoryEventStore } from '../../event-store/src/in-memory/in-memory.event-store';
import { LocalDiskBlobStorage } from '../../blob-storage/src/local-disk/local-disk.blob-storage';
import type { FilesReader } from '@larder/projections/files/files.reader';
import { FileWriter } from './file.writer';
import { UploadWriter } from './upload.writer';
import { PartUrls } from './part-urls';
import { FilesConfig } from './files.config';
import { fileStream } from './streams';
import { UploadFileHandler } from './commands/upload-file/upload-file.handler';
import { UploadFileCommand } from './commands/upload-file/upload-file.command';
import { ReplaceFileHandler } from './commands/replace-file/replace-file.handler';
import { ReplaceFileCommand } from './commands/replace-file/replace-file.command';
import { DeleteFileHandler } from './commands/delete-file/delete-file.handler';
import { DeleteFileCommand } from './commands/delete-file/delete-file.command';
import { CreateUploadHandler } from './commands/create-upload/create-upload.handler';
import { CreateUploadCommand } from './commands/create-upload/create-upload.command';
import { UploadPartHandler } from './commands/upload-part/upload-part.handler';
import { UploadPartCommand } from './commands/upload-part/upload-part.command';
import { CompleteUploadHandler } from './commands/complete-upload/complete-upload.handler';
import { CompleteUploadCommand } from './commands/complete-upload/complete-upload.command';
import { AbortUploadHandler } from './commands/abort-upload/abort-upload.handler';
import { AbortUploadCommand } from './commands/abort-upload/abort-upload.command';

/** A read model that never catches up in time: every wait times out. */
const lateReadModel: ReadModelConsistency = {
  waitFor: async () => {
    throw new ConsistencyTimeoutError('read model is late');
  },
};
/** The read model must not be needed to answer a stored write. */
const unreachableReader = {
  get: async () => {
    throw new Error('the read model was asked although it is late');
  },
} as unknown as FilesReader;

class FailingAppends extends InMemoryEventStore {
  failNext = false;
  override appendToStream(
    stream: string,
    events: NewEvent[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('event store unavailable'));
    }
    return super.appendToStream(stream, events, options);
  }
}

/** Runs `fn` as an HTTP request would and returns the response headers it set. */
async function inRequest<T>(fn: () => Promise<T>): Promise<{ result: T; headers: Record<string, string> }> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (n: string, v: string) => (headers[n.toLowerCase()] = v), headersSent: false };
  const result = await new Promise<T>((resolve, reject) =>
    withReadLagReporting(res, () => void fn().then(resolve, reject)),
  );
  return { result, headers };
}

const text = async (r: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('files writes when the read model is late (a stored write is a fact)', () => {
  const ORG = '00000000-0000-4000-8000-000000000001';
  let dir: string;
  let store: FailingAppends;
  let blobs: LocalDiskBlobStorage;
  let files: FileWriter;
  let uploads: UploadWriter;
  const config: FilesConfig = {
    maxFileBytes: 1_000_000,
    uploadTtlMs: 60_000,
    partUrlTtlSeconds: 60,
    signingSecret: 'test-secret',
    publicUrl: null,
    sweepExpiredUploads: false,
  };
  const clock = new SystemClock();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'larder-files-spec-'));
    store = new FailingAppends();
    blobs = new LocalDiskBlobStorage(dir);
    files = new FileWriter(
      new Writes(store, clock, new RandomIdGenerator(), lateReadModel),
      blobs,
      config,
      unreachableReader,
    );
    uploads = new UploadWriter(new Writes(store, clock, new RandomIdGenerator(), lateReadModel));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const upload = (name: string, content: string) =>
    new UploadFileHandler(files).execute(
      new UploadFileCommand(ORG, 'key-1', name, 'text/plain', Readable.from([Buffer.from(content)])),
    );

  it('an upload answers the decided file, keeps its content and says reads may lag', async () => {
    const { result: f, headers } = await inRequest(() => upload('notes.txt', 'hello larder'));
    expect(f).toMatchObject({
      filename: 'notes.txt',
      bytes: 12,
      mime_type: 'text/plain',
      version: 1,
      created_at: expect.any(String),
      updated_at: f.created_at,
    });
    expect(headers['larder-read-lag']).toBe('files');
    expect(await text(await blobs.get(f.blobKey))).toBe('hello larder');
    const events = await store.readStream(fileStream(f.id));
    expect(events.map((e) => e.type)).toEqual(['FileUploaded']);
    expect(events[0].data).toMatchObject({ blobKey: f.blobKey, bytes: 12 });
  });

  it('an upload whose append fails answers the error and leaves no content behind', async () => {
    const put = jest.spyOn(blobs, 'put');
    store.failNext = true;
    await expect(upload('lost.txt', 'gone')).rejects.toThrow('event store unavailable');
    expect(await store.readAll().then((all) => all.length)).toBe(0);
    expect(put).toHaveBeenCalledTimes(1);
    expect(await blobs.size(put.mock.calls[0][0])).toBeNull();
  });

  it('a replace answers version 2 from the decided state and keeps the new content; a delete answers deleted', async () => {
    const f = await upload('a.txt', 'one');
    const { result: r, headers } = await inRequest(() =>
      new ReplaceFileHandler(files).execute(
        new ReplaceFileCommand(ORG, 'key-1', f.id, 'b.md', undefined, Readable.from([Buffer.from('two!')])),
      ),
    );
    expect(r).toMatchObject({
      id: f.id,
      filename: 'b.md',
      mime_type: 'text/markdown',
      bytes: 4,
      version: 2,
      created_at: f.created_at,
    });
    expect(headers['larder-read-lag']).toBe('files');
    const replaced = (await store.readStream(fileStream(f.id)))[1];
    expect(await text(await blobs.get(replaced.data.blobKey as string))).toBe('two!');

    expect(await new DeleteFileHandler(files).execute(new DeleteFileCommand(ORG, 'key-1', f.id))).toEqual({
      id: f.id,
      deleted: true,
      object: 'file',
    });
    expect((await store.readStream(fileStream(f.id))).map((e) => e.type)).toEqual([
      'FileUploaded',
      'FileReplaced',
      'FileDeleted',
    ]);
  });

  it('content a stored replace superseded is deleted once the read model has caught up', async () => {
    let late = true;
    const catchingUp: ReadModelConsistency = {
      waitFor: async () => {
        if (late) throw new ConsistencyTimeoutError('read model is late');
      },
    };
    const rows = { get: async () => null } as unknown as FilesReader;
    files = new FileWriter(new Writes(store, clock, new RandomIdGenerator(), catchingUp), blobs, config, rows);
    const f = await upload('a.txt', 'one');
    await new ReplaceFileHandler(files).execute(
      new ReplaceFileCommand(ORG, 'key-1', f.id, 'a.txt', 'text/plain', Readable.from([Buffer.from('two')])),
    );
    // downloads may still be served from the old row: its content stays while the read model is late
    await new Promise((r) => setTimeout(r, 300));
    expect(await blobs.size(f.blobKey)).toBe(3);
    late = false;
    for (let i = 0; i < 50 && (await blobs.size(f.blobKey)) !== null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await blobs.size(f.blobKey)).toBeNull();
  });

  it('a refused replace deletes only its own new content', async () => {
    const f = await upload('a.txt', 'one');
    const put = jest.spyOn(blobs, 'put');
    store.failNext = true;
    await expect(
      new ReplaceFileHandler(files).execute(
        new ReplaceFileCommand(ORG, 'key-1', f.id, 'b.txt', 'text/plain', Readable.from([Buffer.from('two')])),
      ),
    ).rejects.toThrow();
    expect(await blobs.size(put.mock.calls[0][0])).toBeNull();
    expect(await text(await blobs.get(f.blobKey))).toBe('one');
    expect((await store.readStream(fileStream(f.id))).map((e) => e.type)).toEqual(['FileUploaded']);
  });

  it('a multipart upload is created, receives parts, completes and answers the file without the read models', async () => {
    const partUrls = new PartUrls(blobs, clock, config);
    const { result: created, headers } = await inRequest(() =>
      new CreateUploadHandler(uploads, files, partUrls, blobs, config).execute(
        new CreateUploadCommand(ORG, 'key-1', 'big.txt', 10, 'text/plain', 2, 'http://larder.test'),
      ),
    );
    expect(headers['larder-read-lag']).toBe('file-uploads');
    expect(created.part_urls.map((p) => p.part_number)).toEqual([1, 2]);
    const etags: string[] = [];
    for (const [i, content] of ['hello', 'world'].entries()) {
      const url = new URL(created.part_urls[i].url);
      const put = await new UploadPartHandler(uploads, partUrls, blobs).execute(
        new UploadPartCommand(
          created.id,
          i + 1,
          url.searchParams.get('expires')!,
          url.searchParams.get('signature')!,
          Readable.from([Buffer.from(content)]),
        ),
      );
      etags.push(put.etag);
    }
    const file = await new CompleteUploadHandler(uploads, files, blobs).execute(
      new CompleteUploadCommand(
        ORG,
        'key-1',
        created.id,
        etags.map((etag, i) => ({ partNumber: i + 1, etag })),
      ),
    );
    expect(file).toMatchObject({ filename: 'big.txt', bytes: 10, mime_type: 'text/plain', version: 1 });
    const uploaded = (await store.readStream(fileStream(file.id)))[0];
    expect(await text(await blobs.get(uploaded.data.blobKey as string))).toBe('helloworld');
    // a second completion is refused; aborting a completed upload too
    await expect(
      new CompleteUploadHandler(uploads, files, blobs).execute(new CompleteUploadCommand(ORG, 'key-1', created.id, [])),
    ).rejects.toMatchObject({ status: 409 });
    await expect(
      new AbortUploadHandler(uploads, blobs).execute(new AbortUploadCommand(ORG, 'key-1', created.id)),
    ).rejects.toMatchObject({ status: 409 });
  });

  it('an abort answers once stored, although the read model is late; another organization gets 404', async () => {
    const partUrls = new PartUrls(blobs, clock, config);
    const created = await new CreateUploadHandler(uploads, files, partUrls, blobs, config).execute(
      new CreateUploadCommand(ORG, 'key-1', 'x.txt', 4, 'text/plain', 1, 'http://larder.test'),
    );
    const other = '00000000-0000-4000-8000-000000000002';
    await expect(
      new AbortUploadHandler(uploads, blobs).execute(new AbortUploadCommand(other, 'key-2', created.id)),
    ).rejects.toMatchObject({ status: 404 });
    expect(
      await new AbortUploadHandler(uploads, blobs).execute(new AbortUploadCommand(ORG, 'key-1', created.id)),
    ).toEqual({ id: created.id, deleted: true, object: 'file' });
  });
});

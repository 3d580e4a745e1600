import { createHash, randomBytes } from 'crypto';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(120_000);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('Files through the official @mixedbread/sdk client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;

  beforeAll(async () => {
    t = await startTestLarder();
    key = (await t.newOrganization('files')).apiKey;
    c = t.client(key);
  });
  afterAll(async () => t?.close());

  const raw = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(path.startsWith('http') ? path : `${t.baseURL}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${init.key ?? key}`, ...(init.headers ?? {}) },
    });

  it('uploads a small file, downloads it byte for byte with the right headers, replaces and deletes it', async () => {
    const body = Buffer.from('# Notes\n\nhello larder\n');
    const f = await c.files.create({ file: await toFile(body, 'notes.md', { type: 'text/markdown' }) });
    // Mixedbread's file object, and OpenAI's fields beside it (no purpose given: null)
    expect(f).toEqual({
      id: expect.any(String),
      filename: 'notes.md',
      bytes: body.length,
      mime_type: 'text/markdown',
      version: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      object: 'file',
      purpose: null,
      status: 'processed',
    });
    expect(await c.files.retrieve(f.id)).toEqual(f);

    const res = await c.files.content(f.id);
    const got = Buffer.from(await res.arrayBuffer());
    expect(got.equals(body)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-length')).toBe(String(body.length));
    expect(res.headers.get('content-disposition')).toContain('notes.md');
    expect(res.headers.get('etag')).toBe(`"${sha(body)}"`);

    const part = await raw(`/v1/files/${f.id}/content`, { headers: { range: 'bytes=2-6' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 2-6/${body.length}`);
    expect(Buffer.from(await part.arrayBuffer()).toString()).toBe(body.subarray(2, 7).toString());
    expect((await raw(`/v1/files/${f.id}/content`, { headers: { range: 'bytes=999-' } })).status).toBe(416);
    expect((await raw(`/v1/files/${f.id}/content`, { headers: { 'if-none-match': `"${sha(body)}"` } })).status).toBe(
      304,
    );

    const replaced = await c.files.update(f.id, {
      file: await toFile(Buffer.from('v2 content'), 'notes-v2.txt', { type: 'text/plain' }),
    });
    expect(replaced).toMatchObject({
      id: f.id,
      version: 2,
      filename: 'notes-v2.txt',
      bytes: 10,
      mime_type: 'text/plain',
    });
    expect(Buffer.from(await (await c.files.content(f.id)).arrayBuffer()).toString()).toBe('v2 content');

    expect(await c.files.delete(f.id)).toEqual({ id: f.id, deleted: true, object: 'file' });
    await expect(c.files.retrieve(f.id)).rejects.toMatchObject({ status: 404 });
    expect((await raw(`/v1/files/${f.id}/content`)).status).toBe(404);
  });

  it('uploads 12 MiB through presigned parts (5 MiB threshold and part size) and downloads it intact', async () => {
    const body = randomBytes(12 * 1024 * 1024);
    const parts: number[] = [];
    const f = await c.files.create({
      file: await toFile(body, 'big.bin', { type: 'application/octet-stream' }),
      multipartUpload: {
        threshold: 5 * 1024 * 1024,
        partSize: 5 * 1024 * 1024,
        onPartUpload: (e: { partNumber: number }) => void parts.push(e.partNumber),
      },
    } as never);
    expect(parts.sort()).toEqual([1, 2, 3]);
    expect(f).toMatchObject({ filename: 'big.bin', bytes: body.length, version: 1 });
    const got = Buffer.from(await (await c.files.content(f.id)).arrayBuffer());
    expect(sha(got)).toBe(sha(body));
    expect((await c.files.uploads.list()).data).toEqual([]);
  });

  it('lists with fuzzy q and pages both ways', async () => {
    const { apiKey } = await t.newOrganization('listing');
    const lc = t.client(apiKey);
    const names = [
      'quarterly-report-2024.pdf',
      'meeting-notes.md',
      'budget.csv',
      'annual-report.docx',
      'readme.txt',
      'photo.png',
      'report-draft.txt',
    ];
    for (const n of names) await lc.files.create({ file: await toFile(Buffer.from(`content of ${n}`), n) });

    const typo = await lc.files.list({ q: 'reprot' });
    expect(typo.data.map((f) => f.filename)).toEqual(
      expect.arrayContaining(['quarterly-report-2024.pdf', 'annual-report.docx', 'report-draft.txt']),
    );
    expect(typo.data.map((f) => f.filename)).not.toContain('photo.png');
    const exact = await lc.files.list({ q: 'budget' });
    expect(exact.data[0].filename).toBe('budget.csv');

    const p1 = await lc.files.list({ limit: 3 });
    expect(p1.data.map((f) => f.filename)).toEqual(['report-draft.txt', 'photo.png', 'readme.txt']); // newest first
    const p2 = await lc.files.list({ limit: 3, after: p1.pagination.last_cursor });
    expect(p2.data.map((f) => f.filename)).toEqual(['annual-report.docx', 'budget.csv', 'meeting-notes.md']);
    const back = await lc.files.list({ limit: 3, before: p2.pagination.first_cursor });
    expect(back.data.map((f) => f.filename)).toEqual(p1.data.map((f) => f.filename));
    expect(back.pagination.has_more).toBe(false);
    const all: string[] = [];
    for await (const f of lc.files.list({ limit: 2 })) all.push(f.filename);
    expect(all.sort()).toEqual([...names].sort());
    expect((await lc.files.list({ limit: 2, include_total: true })).pagination.total).toBe(7);
  });

  it('answers bad input with clear 4xx and creates nothing', async () => {
    const before = (await c.files.list({ include_total: true })).pagination.total;
    const noFile = new FormData();
    noFile.append('other', 'x');
    expect((await raw('/v1/files', { method: 'POST', body: noFile })).status).toBe(422);
    expect(
      (
        await raw('/v1/files', {
          method: 'POST',
          body: JSON.stringify({}),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(422);
    await expect(c.files.create({ file: await toFile(Buffer.alloc(0), 'empty.txt') })).rejects.toMatchObject({
      status: 422,
    });
    const json = { 'content-type': 'application/json' };
    for (const part_count of [0, 10001]) {
      const r = await raw('/v1/files/uploads', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ filename: 'x', file_size: 20000, mime_type: 'text/plain', part_count }),
      });
      expect(r.status).toBe(422);
    }
    expect(
      (
        await raw('/v1/files/uploads', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ filename: 'x', file_size: 10, mime_type: 'nope' }),
        })
      ).status,
    ).toBe(422);

    // complete with a missing part, then with a wrong ETag
    const up = await c.files.uploads.create({
      filename: 'two.txt',
      file_size: 10,
      mime_type: 'text/plain',
      part_count: 2,
    });
    const p1 = await fetch(up.part_urls[0].url, { method: 'PUT', body: Buffer.from('hello') });
    expect(p1.status).toBe(200);
    const etag1 = p1.headers.get('etag')!;
    await expect(c.files.uploads.complete(up.id, { parts: [{ part_number: 1, etag: etag1 }] })).rejects.toMatchObject({
      status: 400,
    });
    const p2 = await fetch(up.part_urls[1].url, { method: 'PUT', body: Buffer.from('world') });
    await expect(
      c.files.uploads.complete(up.id, {
        parts: [
          { part_number: 1, etag: etag1 },
          { part_number: 2, etag: '"0000"' },
        ],
      }),
    ).rejects.toMatchObject({ status: 400 });
    // tampered and expired part URLs
    const tampered = up.part_urls[0].url.replace(/signature=([^&]+)/, 'signature=AAAA$1');
    expect((await fetch(tampered, { method: 'PUT', body: Buffer.from('x') })).status).toBe(403);
    const expired = up.part_urls[0].url.replace(/expires=\d+/, 'expires=1');
    expect((await fetch(expired, { method: 'PUT', body: Buffer.from('x') })).status).toBe(403);
    // still completable with the right parts
    const done = await c.files.uploads.complete(up.id, {
      parts: [
        { part_number: 1, etag: etag1 },
        { part_number: 2, etag: p2.headers.get('etag')! },
      ],
    });
    expect(Buffer.from(await (await c.files.content(done.id)).arrayBuffer()).toString()).toBe('helloworld');
    await expect(
      c.files.uploads.complete(up.id, {
        parts: [
          { part_number: 1, etag: etag1 },
          { part_number: 2, etag: p2.headers.get('etag')! },
        ],
      }),
    ).rejects.toMatchObject({
      status: 409,
    });
    expect((await c.files.list({ include_total: true })).pagination.total).toBe((before ?? 0) + 1);
  });

  it('resumes an interrupted upload: detail lists completed parts and fresh URLs for missing ones; abort deletes', async () => {
    const up = await c.files.uploads.create({
      filename: 'resume.txt',
      file_size: 15,
      mime_type: 'text/plain',
      part_count: 3,
    });
    await fetch(up.part_urls[1].url, { method: 'PUT', body: Buffer.from('BBBBB') });
    const detail = await c.files.uploads.retrieve(up.id);
    expect(detail.completed_parts.map((p) => p.part_number)).toEqual([2]);
    expect(detail.part_urls.map((p) => p.part_number)).toEqual([1, 3]);
    expect((await c.files.uploads.list()).data.map((u) => u.id)).toContain(up.id);
    expect(await c.files.uploads.abort(up.id)).toEqual({ id: up.id, deleted: true, object: 'file' });
    expect((await fetch(up.part_urls[0].url, { method: 'PUT', body: Buffer.from('AAAAA') })).status).toBe(404);
    expect((await c.files.uploads.list()).data.map((u) => u.id)).not.toContain(up.id);
  });

  it('isolates organizations on every route, part URLs included', async () => {
    const f = await c.files.create({ file: await toFile(Buffer.from('mine'), 'mine.txt') });
    const up = await c.files.uploads.create({ filename: 'u.txt', file_size: 4, mime_type: 'text/plain' });
    const other = t.client((await t.newOrganization('other')).apiKey);
    await expect(other.files.retrieve(f.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.content(f.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.delete(f.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.update(f.id, { file: await toFile(Buffer.from('x'), 'x.txt') })).rejects.toMatchObject({
      status: 404,
    });
    await expect(other.files.uploads.retrieve(up.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.uploads.abort(up.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.uploads.complete(up.id, { parts: [{ part_number: 1, etag: 'x' }] })).rejects.toMatchObject(
      { status: 404 },
    );
    expect((await other.files.list()).data).toEqual([]);
    expect((await other.files.uploads.list()).data).toEqual([]);
    // a signed URL of one upload does not work for another upload id
    const forged = up.part_urls[0].url.replace(up.id, f.id);
    expect((await fetch(forged, { method: 'PUT', body: Buffer.from('x') })).status).toBe(403);
  });
});

describe('Files on the S3 adapter (s3rver on loopback): real presigned UploadPart URLs', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let s3: { endpoint: string; close: () => Promise<void> };

  beforeAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startS3TestServer } = require('../libs/blob-storage/src/testing/s3-test-server');
    s3 = await startS3TestServer();
    t = await startTestLarder({
      env: {
        LARDER_BLOB_STORAGE: 's3',
        LARDER_S3_ENDPOINT: s3.endpoint,
        LARDER_S3_BUCKET: `larder-e2e-${randomBytes(4).toString('hex')}`,
        LARDER_S3_ACCESS_KEY_ID: 'S3RVER',
        LARDER_S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
    });
    c = t.client((await t.newOrganization('s3')).apiKey);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('uploads 12 MiB through presigned S3 part URLs, then downloads whole and by range', async () => {
    const body = randomBytes(12 * 1024 * 1024);
    const create = await c.files.uploads.create({
      filename: 'probe.bin',
      file_size: 10,
      mime_type: 'text/plain',
      part_count: 1,
    });
    expect(create.part_urls[0].url.startsWith(s3.endpoint)).toBe(true); // S3 itself takes the parts
    expect(create.part_urls[0].url).toContain('X-Amz-Signature=');
    await c.files.uploads.abort(create.id).catch(() => undefined);

    const f = await c.files.create({
      file: await toFile(body, 'big-s3.bin', { type: 'application/octet-stream' }),
      multipartUpload: { threshold: 5 * 1024 * 1024, partSize: 5 * 1024 * 1024 },
    } as never);
    expect(f).toMatchObject({ filename: 'big-s3.bin', bytes: body.length });
    const got = Buffer.from(await (await c.files.content(f.id)).arrayBuffer());
    expect(sha(got)).toBe(sha(body));
    const part = await fetch(`${t.baseURL}/v1/files/${f.id}/content`, {
      headers: { authorization: `Bearer ${(c as unknown as { apiKey: string }).apiKey}`, range: 'bytes=100-199' },
    });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(body.subarray(100, 200))).toBe(true);
  });

  it('single-request uploads stream into the bucket', async () => {
    const f = await c.files.create({ file: await toFile(Buffer.from('tiny'), 'tiny.txt') });
    expect(Buffer.from(await (await c.files.content(f.id)).arrayBuffer()).toString()).toBe('tiny');
  });
});

describe('limits: abandoned uploads expire, oversized files are refused', () => {
  it('answers 413 beyond LARDER_MAX_FILE_BYTES, for single and multipart uploads, and stores nothing', async () => {
    const t = await startTestLarder({ env: { LARDER_MAX_FILE_BYTES: '1000' } });
    try {
      const c = t.client((await t.newOrganization('limits')).apiKey);
      const err = await c.files.create({ file: await toFile(randomBytes(2000), 'big.bin') }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 413, error: { error: { code: 413, type: 'payload_too_large' } } });
      await expect(
        c.files.uploads.create({ filename: 'big.bin', file_size: 2000, mime_type: 'application/octet-stream' }),
      ).rejects.toMatchObject({ status: 413 });
      expect((await c.files.list()).data).toEqual([]);
      expect((await c.files.create({ file: await toFile(randomBytes(1000), 'fits.bin') })).bytes).toBe(1000);
    } finally {
      await t.close();
    }
  });

  it('aborts an upload past LARDER_UPLOAD_TTL_SECONDS and deletes its parts', async () => {
    const t = await startTestLarder({ env: { LARDER_UPLOAD_TTL_SECONDS: '1' } });
    try {
      const c = t.client((await t.newOrganization('ttl')).apiKey);
      const up = await c.files.uploads.create({ filename: 'old.txt', file_size: 4, mime_type: 'text/plain' });
      expect((await fetch(up.part_urls[0].url, { method: 'PUT', body: Buffer.from('data') })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      // the sweeper runs every minute; run one pass now
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { UploadExpirySweeper } = require('@larder/files');
      expect(await t.larder.app.get(UploadExpirySweeper).sweepExpired()).toBe(1);
      await expect(c.files.uploads.retrieve(up.id)).rejects.toMatchObject({ status: 404 });
      expect((await c.files.uploads.list()).data).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('API key scopes on the files routes', () => {
  it('grants exactly what a scope entry names', async () => {
    const t = await startTestLarder();
    try {
      const owner = t.client((await t.newOrganization('scopes')).apiKey);
      const f = await owner.files.create({ file: await toFile(Buffer.from('x'), 'x.txt') });
      const g = await owner.files.create({ file: await toFile(Buffer.from('y'), 'y.txt') });
      const readAny = await owner.apiKeys.create({ name: 'read', scope: [{ method: 'read' }] });
      const readOne = await owner.apiKeys.create({ name: 'read-one', scope: [{ method: 'read', resource_id: f.id }] });
      const storeOnly = await owner.apiKeys.create({
        name: 'stores',
        scope: [{ method: 'read', resource_type: 'store' }],
      });
      const r = t.client(readAny.value);
      expect((await r.files.retrieve(f.id)).id).toBe(f.id);
      await expect(r.files.create({ file: await toFile(Buffer.from('z'), 'z.txt') })).rejects.toMatchObject({
        status: 403,
      });
      await expect(r.files.delete(f.id)).rejects.toMatchObject({ status: 403 });
      await expect(r.files.list()).rejects.toMatchObject({ status: 403 });
      const one = t.client(readOne.value);
      expect((await one.files.retrieve(f.id)).id).toBe(f.id);
      await expect(one.files.retrieve(g.id)).rejects.toMatchObject({ status: 403 });
      await expect(t.client(storeOnly.value).files.retrieve(f.id)).rejects.toMatchObject({ status: 403 });
    } finally {
      await t.close();
    }
  });
});

describe('a late read model never turns a stored write into an error (LARDER_CONSISTENCY_TIMEOUT_MS=1)', () => {
  let t: TestLarder;
  let c: Mixedbread;

  /** Retries `fn` until it resolves (the read models catch up shortly after the write). */
  async function eventually<T>(fn: () => Promise<T>, ms = 20_000): Promise<T> {
    const until = Date.now() + ms;
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (Date.now() > until) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_CONSISTENCY_TIMEOUT_MS: '1' } });
    c = t.client((await t.newOrganization('late')).apiKey);
    await eventually(() => c.files.list()); // the new key is usable once the api-keys read model shows it
  });
  afterAll(async () => t?.close());

  it('an upload answers 201 with the file and Larder-Read-Lag, keeps its content, and reads show it shortly after', async () => {
    const body = randomBytes(64 * 1024);
    const { data: f, response } = await c.files
      .create({ file: await toFile(body, 'late.bin', { type: 'application/octet-stream' }) })
      .withResponse();
    expect(response.status).toBe(201);
    expect(f).toEqual({
      id: expect.any(String),
      filename: 'late.bin',
      bytes: body.length,
      mime_type: 'application/octet-stream',
      version: 1,
      created_at: expect.any(String),
      updated_at: f.created_at,
      object: 'file',
      purpose: null,
      status: 'processed',
    });
    expect(response.headers.get('larder-read-lag')).toContain('files');
    expect(await eventually(() => c.files.retrieve(f.id))).toEqual(f);
    const got = Buffer.from(await (await c.files.content(f.id)).arrayBuffer());
    expect(sha(got)).toBe(sha(body));

    const { data: r, response: rr } = await c.files
      .update(f.id, { file: await toFile(Buffer.from('second version'), 'late.txt', { type: 'text/plain' }) })
      .withResponse();
    expect(rr.status).toBe(200);
    expect(r).toMatchObject({
      id: f.id,
      filename: 'late.txt',
      bytes: 14,
      mime_type: 'text/plain',
      version: 2,
      created_at: f.created_at,
    });
    await eventually(async () => expect((await c.files.retrieve(f.id)).version).toBe(2));
    expect(Buffer.from(await (await c.files.content(f.id)).arrayBuffer()).toString()).toBe('second version');

    expect(await c.files.delete(f.id)).toEqual({ id: f.id, deleted: true, object: 'file' });
    await eventually(async () =>
      expect(
        await c.files.retrieve(f.id).then(
          () => 200,
          (e: { status: number }) => e.status,
        ),
      ).toBe(404),
    );
  });

  it('a multipart upload through presigned parts answers success and downloads intact', async () => {
    const body = randomBytes(6 * 1024 * 1024);
    const f = await c.files.create({
      file: await toFile(body, 'late-big.bin', { type: 'application/octet-stream' }),
      multipartUpload: { threshold: 5 * 1024 * 1024, partSize: 5 * 1024 * 1024 },
    } as never);
    expect(f).toMatchObject({ filename: 'late-big.bin', bytes: body.length, version: 1 });
    await eventually(() => c.files.retrieve(f.id));
    expect(sha(Buffer.from(await (await c.files.content(f.id)).arrayBuffer()))).toBe(sha(body));
  });
});

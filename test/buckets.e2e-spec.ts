/* eslint-disable @typescript-eslint/no-explicit-any */
import { execFile } from 'child_process';
import { promisify } from 'util';
import { randomBytes } from 'crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Pool } from 'pg';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { S3Double, startS3Double } from '../libs/blob-storage/src/testing/s3-double';
import { startStsDouble, StsDouble } from '../libs/blob-storage/src/testing/sts-double';
import { createServerTestDatabase, TestDatabase } from '../libs/database/src/testing/test-databases';
import { freePort, ServerProcess, startServerProcess } from './support/server-process';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
const ROLE = 'arn:aws:iam::123456789012:role/larder-docs';
/** Every credential the test hands Larder or Larder gets from STS: none may ever appear in a response, an event or a log line. */
const KEYS = {
  good: { id: 'AKIAGOODKEY00000001', secret: `good-${randomBytes(12).toString('base64url')}` },
  rotated: { id: 'AKIAROTATEDKEY00002', secret: `rotated-${randomBytes(12).toString('base64url')}` },
  readOnly: { id: 'AKIAREADONLYKEY0003', secret: `readonly-${randomBytes(12).toString('base64url')}` },
  other: { id: 'AKIAOTHERBUCKET0004', secret: `other-${randomBytes(12).toString('base64url')}` },
  everywhere: { id: 'AKIAEVERYWHERE00005', secret: `everywhere-${randomBytes(12).toString('base64url')}` },
  revoked: { id: 'AKIAREVOKEDSOON0006', secret: `revoked-${randomBytes(12).toString('base64url')}` },
  replacement: { id: 'AKIAREPLACEMENT0007', secret: `replacement-${randomBytes(12).toString('base64url')}` },
  larder: { id: 'AKIALARDERITSELF008', secret: `larder-own-${randomBytes(12).toString('base64url')}` },
};

interface Answer {
  status: number;
  body: any;
}

/**
 * Buckets end to end against one server process (the machine's PostgreSQL), a local
 * S3 endpoint that verifies SigV4 (s3rver behind a signing front) and a local double of AWS STS's
 * `AssumeRole` (query protocol): create of both kinds, refused creates that store nothing, rotation,
 * a store in a bucket through the official client, a bucket whose keys stop working, secrets absent
 * from every response, event and log line, and a master-key rotation followed by a restart.
 */
describe('buckets', () => {
  let s3: S3Double;
  let sts: StsDouble;
  let db: TestDatabase;
  let pool: Pool;
  let server: ServerProcess;
  let client: Mixedbread;
  let dead: number;
  let port: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-buckets-'));
  const rootKey = `lrd_buckets_${randomBytes(24).toString('base64url')}`;
  let env: Record<string, string>;
  /** What server processes wrote before a restart (stdout and stderr). */
  const earlierLogs: string[] = [];
  /** Every response body the server sent, raw. */
  const responses: string[] = [];
  const ids: { keyBucket?: string; roleBucket?: string; revokeBucket?: string; store?: string; externalId?: string } =
    {};

  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    responses.push(await res.clone().text());
    return res;
  };
  const api = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await recordingFetch(`${server.baseURL}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${rootKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const accessKey = (k: { id: string; secret: string }) => ({
    type: 'access_key',
    access_key_id: k.id,
    secret_access_key: k.secret,
  });
  const createBody = (over: Record<string, unknown> = {}) => ({
    name: 'docs',
    bucket: 'acme-docs',
    region: 'eu-west-1',
    endpoint_url: s3.endpoint,
    prefix: 'larder',
    credentials: accessKey(KEYS.good),
    ...over,
  });
  const bucketEvents = async () =>
    (
      await pool.query(
        `SELECT type, data FROM larder_events.events WHERE stream_id LIKE 'bucket-%' ORDER BY global_position`,
      )
    ).rows;
  const vaultRows = async () =>
    (
      await pool.query<{ ref: string; key_id: string; sealed: string }>(
        `SELECT ref, key_id, sealed FROM secret_vault_v1 ORDER BY created_at`,
      )
    ).rows;
  /** `npm run cli -- …` (compiled) with the server's environment; resolves to its output. */
  const cli = async (...args: string[]): Promise<string> => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/cli/src/main.js'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '', LARDER_LOG_LEVEL: 'warn', ...env },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    return stdout.trim();
  };
  const until = async <T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/apps/api/src/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
    s3 = await startS3Double();
    sts = await startStsDouble(s3);
    dead = await freePort(); // allowed, but nothing listens there: "unreachable"
    for (const b of ['acme-docs', 'acme-other', 'acme-role', 'acme-revoke']) await s3.createBucket(b);
    s3.keys.set(KEYS.good.id, { secretAccessKey: KEYS.good.secret, buckets: ['acme-docs'] });
    s3.keys.set(KEYS.rotated.id, { secretAccessKey: KEYS.rotated.secret, buckets: ['acme-docs'] });
    s3.keys.set(KEYS.readOnly.id, { secretAccessKey: KEYS.readOnly.secret, buckets: ['acme-docs'], readOnly: true });
    s3.keys.set(KEYS.other.id, { secretAccessKey: KEYS.other.secret, buckets: ['acme-other'] });
    s3.keys.set(KEYS.everywhere.id, { secretAccessKey: KEYS.everywhere.secret, buckets: '*' });
    s3.keys.set(KEYS.revoked.id, { secretAccessKey: KEYS.revoked.secret, buckets: ['acme-revoke'] });
    s3.keys.set(KEYS.replacement.id, { secretAccessKey: KEYS.replacement.secret, buckets: ['acme-revoke'] });
    sts.callers.set(KEYS.larder.id, KEYS.larder.secret);
    // the role trusts Larder's identity, but with which external id is learned from Larder's first refusal (as a customer would)
    sts.roles.set(ROLE, {
      externalId: null,
      trustedCallers: [KEYS.larder.id],
      permissions: { buckets: ['acme-role'] },
    });
    db = await createServerTestDatabase('larder_buckets');
    pool = new Pool({ connectionString: db.url, max: 2 });
    port = await freePort();
    env = {
      DATABASE_URL: db.url,
      LARDER_DATA_DIR: dataDir,
      LARDER_ROOT_KEY: rootKey,
      LARDER_LOG_LEVEL: 'debug',
      LARDER_OUTBOUND_ALLOW: `127.0.0.1:${s3.port},127.0.0.1:${sts.port},127.0.0.1:${dead}`,
      LARDER_STS_ENDPOINT: sts.endpoint,
      LARDER_STS_ACCESS_KEY_ID: KEYS.larder.id,
      LARDER_STS_SECRET_ACCESS_KEY: KEYS.larder.secret,
      LARDER_INGESTION_POLL_MS: '100',
      LARDER_INGESTION_RETRY_BASE_MS: '200',
    };
    server = await startServerProcess(env, port);
    client = new Mixedbread({
      apiKey: rootKey,
      baseURL: server.baseURL,
      maxRetries: 0,
      timeout: 60_000,
      fetch: recordingFetch,
    });
  });

  afterAll(async () => {
    await server?.stop();
    await pool?.end();
    await db?.drop();
    await sts?.close();
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates an access_key bucket after probing it: write, read back and delete below the prefix', async () => {
    const r = await api('POST', '/v1/buckets', createBody());
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(
      [
        'id',
        'created_at',
        'updated_at',
        'name',
        'provider',
        'bucket',
        'region',
        'endpoint_url',
        'prefix',
        'sse_kms_key_id',
        'auth_type',
        'role_arn',
        'external_id',
        'status',
        'last_validated_at',
        'has_credentials',
        'credentials_version',
        'last_error',
        'object',
      ].sort(),
    );
    expect(r.body).toMatchObject({
      object: 'bucket',
      name: 'docs',
      provider: 'aws_s3',
      bucket: 'acme-docs',
      region: 'eu-west-1',
      endpoint_url: s3.endpoint,
      prefix: 'larder',
      sse_kms_key_id: null,
      auth_type: 'access_key',
      role_arn: null,
      external_id: null,
      status: 'active',
      has_credentials: true,
      credentials_version: 1,
      last_error: null,
    });
    expect(Date.parse(r.body.last_validated_at)).toBeGreaterThan(Date.now() - 60_000);
    ids.keyBucket = r.body.id;
    const probe = s3.log.filter((l) => l.accessKeyId === KEYS.good.id);
    expect(probe.map((l) => `${l.method} ${l.status}`)).toEqual(['PUT 200', 'GET 200', 'DELETE 204']);
    expect(probe.every((l) => l.path.startsWith('/acme-docs/larder/.larder-probe/'))).toBe(true);
    expect(await s3.listKeys('acme-docs')).toEqual([]);

    expect((await api('GET', `/v1/buckets/${ids.keyBucket}`)).body).toEqual(r.body);
    const list = await api('GET', '/v1/buckets?limit=10&include_total=true');
    expect(list.body).toMatchObject({ object: 'list', data: [r.body], pagination: { has_more: false, total: 1 } });
    expect(list.body.pagination.first_cursor).toEqual(expect.any(String));
  });

  it('creates an assume_role bucket: STS assumes the role with the organization’s external id, only the role and the id are stored', async () => {
    const body = createBody({
      name: 'role docs',
      bucket: 'acme-role',
      prefix: '',
      credentials: { type: 'assume_role', role_arn: ROLE },
    });
    const refused = await api('POST', '/v1/buckets', body);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'credentials', 'role_arn']);
    const externalId = /with external id (larder-[0-9a-f-]{36})/.exec(refused.body.detail[0].msg)?.[1];
    expect(externalId).toBeDefined();
    expect(sts.calls.at(-1)).toMatchObject({
      roleArn: ROLE,
      externalId,
      caller: KEYS.larder.id,
      outcome: 'AccessDenied',
    });

    sts.roles.get(ROLE)!.externalId = externalId!; // the customer's trust policy now requires it
    const r = await api('POST', '/v1/buckets', body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      auth_type: 'assume_role',
      role_arn: ROLE,
      external_id: externalId,
      has_credentials: false,
      credentials_version: 1,
      status: 'active',
    });
    ids.roleBucket = r.body.id;
    ids.externalId = externalId;
    const call = sts.calls.at(-1)!;
    expect(call).toMatchObject({ externalId, outcome: 'ok', sessionName: `larder-${r.body.id}` });
    // the probe ran with the temporary credentials STS issued
    const temporary = s3.log.filter((l) => l.path.startsWith('/acme-role/.larder-probe/'));
    expect(temporary.map((l) => l.status)).toEqual([200, 200, 204]);
    expect(temporary.every((l) => l.accessKeyId?.startsWith('ASIA'))).toBe(true);

    const created = (await bucketEvents()).find((e) => e.data.bucketId === ids.roleBucket)!;
    expect(created.data).toMatchObject({
      authType: 'assume_role',
      roleArn: ROLE,
      externalId,
      secretRef: null,
      accessKeyIdLast4: null,
    });
    expect((await vaultRows()).length).toBe(1); // only the access_key bucket's keys
  });

  it('refuses a bucket that fails its probe, with the reason, and stores nothing', async () => {
    const eventsBefore = (await bucketEvents()).length;
    const vaultBefore = (await vaultRows()).length;
    const probesBefore = s3.log.length;
    const cases: [string, Record<string, unknown>, (string | number)[], RegExp][] = [
      [
        'wrong secret',
        { credentials: accessKey({ id: KEYS.good.id, secret: 'not-the-secret-key' }) },
        ['body', 'credentials'],
        /credentials were refused \(SignatureDoesNotMatch/,
      ],
      [
        'unknown key',
        { credentials: accessKey({ id: 'AKIANOSUCHKEY000009', secret: KEYS.good.secret }) },
        ['body', 'credentials'],
        /credentials were refused \(InvalidAccessKeyId/,
      ],
      [
        'unwritable bucket',
        { credentials: accessKey(KEYS.readOnly) },
        ['body', 'credentials'],
        /writing a test object: access to bucket acme-docs was denied/,
      ],
      [
        'nonexistent bucket',
        { bucket: 'no-such-bucket', credentials: accessKey(KEYS.everywhere) },
        ['body', 'bucket'],
        /bucket no-such-bucket does not exist \(NoSuchBucket/,
      ],
      [
        'unreachable endpoint',
        { endpoint_url: `http://127.0.0.1:${dead}` },
        ['body', 'endpoint_url'],
        /could not be reached \(ECONNREFUSED\)/,
      ],
      [
        'cloud metadata address',
        { endpoint_url: 'http://169.254.169.254/' },
        ['body', 'endpoint_url'],
        /169\.254\.169\.254 is a link-local \(cloud metadata\) address/,
      ],
      [
        'private address',
        { endpoint_url: 'http://10.0.0.1:9000' },
        ['body', 'endpoint_url'],
        /10\.0\.0\.1 is a private address/,
      ],
      [
        'loopback through a host name',
        { endpoint_url: `http://localhost:${s3.port + 1}` },
        ['body', 'endpoint_url'],
        /localhost resolves to [^,]+, a loopback address/,
      ],
      ['not a URL', { endpoint_url: 'ftp://files.example' }, ['body', 'endpoint_url'], /scheme must be http or https/],
    ];
    for (const [name, over, loc, message] of cases) {
      const r = await api('POST', '/v1/buckets', createBody(over));
      expect({ name, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ name, status: 422, loc });
      expect(r.body.detail[0].msg).toMatch(message);
      expect(r.body.message).toMatch(/The bucket check failed/);
    }
    // malformed credentials: a 422 at the field, without echoing the value
    const missing = await api(
      'POST',
      '/v1/buckets',
      createBody({ credentials: { type: 'access_key', access_key_id: KEYS.good.id } }),
    );
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'credentials', 'secret_access_key'], msg: 'Field required', type: 'missing' },
    ]);
    const wrongType = await api(
      'POST',
      '/v1/buckets',
      createBody({ credentials: { type: 'access_key', access_key_id: KEYS.good.id, secret_access_key: 12345 } }),
    );
    expect(wrongType.body.detail).toEqual([
      { loc: ['body', 'credentials', 'secret_access_key'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
    expect(JSON.stringify(wrongType.body)).not.toContain('12345');
    const noCredentials = await api('POST', '/v1/buckets', { name: 'x', bucket: 'y' });
    expect(noCredentials.body.detail).toEqual([
      { loc: ['body', 'credentials'], msg: 'Field required', type: 'missing' },
    ]);

    expect((await bucketEvents()).length).toBe(eventsBefore);
    expect((await vaultRows()).length).toBe(vaultBefore);
    expect((await api('GET', '/v1/buckets')).body.data).toHaveLength(2);
    // the refused addresses were never connected to, and nothing was left in any bucket
    expect(s3.log.slice(probesBefore).every((l) => l.method !== 'PUT' || l.status !== 200)).toBe(true);
    for (const b of ['acme-docs', 'acme-other']) expect(await s3.listKeys(b)).toEqual([]);
  });

  it('rotates an access_key bucket’s keys only to keys that reach the same bucket', async () => {
    const [before] = await vaultRows();
    const wrongBucket = await api('POST', `/v1/buckets/${ids.keyBucket}/credentials`, {
      credentials: accessKey(KEYS.other),
    });
    expect(wrongBucket.status).toBe(422);
    expect(wrongBucket.body.detail[0]).toMatchObject({ loc: ['body', 'credentials'] });
    expect(wrongBucket.body.detail[0].msg).toMatch(/access to bucket acme-docs was denied/);

    const onRole = await api('POST', `/v1/buckets/${ids.roleBucket}/credentials`, {
      credentials: accessKey(KEYS.good),
    });
    expect(onRole.status).toBe(400);
    expect(onRole.body.message).toMatch(/only access_key buckets have credentials to rotate/);
    expect(
      (await api('POST', `/v1/buckets/${randomUuid()}/credentials`, { credentials: accessKey(KEYS.good) })).status,
    ).toBe(404);
    const malformed = await api('GET', '/v1/buckets/not-a-uuid');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['path', 'bucket_id'], type: 'uuid_parsing' });
    expect(
      (
        await api('POST', `/v1/buckets/${ids.keyBucket}/credentials`, {
          credentials: { type: 'assume_role', role_arn: ROLE },
        })
      ).status,
    ).toBe(422);

    const rotated = await api('POST', `/v1/buckets/${ids.keyBucket}/credentials`, {
      credentials: accessKey(KEYS.rotated),
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      id: ids.keyBucket,
      credentials_version: 2,
      status: 'active',
      has_credentials: true,
    });
    const after = await vaultRows();
    expect(after).toHaveLength(1); // the superseded keys are gone from the vault
    expect(after[0].ref).not.toBe(before.ref);
    const events = (await bucketEvents()).filter((e) => e.data.bucketId === ids.keyBucket);
    expect(events.map((e) => e.type)).toEqual(['BucketCreated', 'BucketCredentialsRotated']);
    expect(events[1].data).toMatchObject({
      secretRef: after[0].ref,
      accessKeyIdLast4: KEYS.rotated.id.slice(-4),
      credentialsVersion: 2,
    });
  });

  it('keeps a store’s content and artifacts in its bucket: upload, ingestion, search, and deletes that empty the prefix', async () => {
    const store: any = await client.stores.create({ name: 'bucket-store', bucket_id: ids.keyBucket } as never);
    expect(store.bucket_id).toBe(ids.keyBucket);
    ids.store = store.id;
    expect((await client.stores.retrieve(store.id)).bucket_id).toBe(ids.keyBucket);

    const text =
      '# Quince paste\n\nSimmer quinces with sugar until the paste turns deep amber, then set it in a tray.\n';
    const sf = await client.stores.files.uploadAndPoll({
      storeIdentifier: store.id,
      file: await toFile(Buffer.from(text), 'quince.md', { type: 'text/markdown' }),
      pollIntervalMs: 200,
    });
    expect(sf).toMatchObject({ status: 'completed', last_error: null });
    const folder = `larder/stores/${store.id}/files/${sf.id}/g1/`;
    const keys = (await s3.listKeys('acme-docs', `larder/stores/${store.id}/`)).sort();
    expect(keys).toEqual([
      expect.stringMatching(new RegExp(`^${folder}chunks/[0-9a-f]{64}\\.json$`)),
      `${folder}content`,
      expect.stringMatching(new RegExp(`^${folder}vectors/[0-9a-f]{64}\\.f32$`)),
    ]);
    expect((await s3.readObject('acme-docs', `${folder}content`))!.toString('utf8')).toBe(text);
    // written with the rotated keys: the rotation took effect
    expect(
      s3.log
        .filter((l) => l.path.startsWith(`/acme-docs/${folder}`) && l.method === 'PUT')
        .every((l) => l.accessKeyId === KEYS.rotated.id),
    ).toBe(true);

    const found: any = await client.stores.search({
      query: 'quince paste amber',
      store_identifiers: [store.id],
      top_k: 3,
    });
    expect(found.data[0]).toMatchObject({ file_id: sf.id, filename: 'quince.md' });

    const del = await api('DELETE', `/v1/buckets/${ids.keyBucket}`);
    expect(del.status).toBe(409);
    expect(del.body.message).toMatch(/used by store bucket-store/);

    await client.stores.files.delete(sf.id, { store_identifier: store.id });
    await until(
      'the removed file’s objects',
      () => s3.listKeys('acme-docs', `larder/stores/${store.id}/files/${sf.id}/`),
      (k) => k.length === 0,
    );

    const second = await client.stores.files.uploadAndPoll({
      storeIdentifier: store.id,
      file: await toFile(Buffer.from('# Medlar jelly\n\nBletted medlars, strained overnight.\n'), 'medlar.md', {
        type: 'text/markdown',
      }),
      pollIntervalMs: 200,
    });
    expect(second.status).toBe('completed');
    expect((await s3.listKeys('acme-docs', 'larder/')).length).toBe(3);
    await client.stores.delete(store.id);
    await until(
      'the deleted store’s objects',
      () => s3.listKeys('acme-docs'),
      (k) => k.length === 0,
    );
  });

  it('turns a bucket whose keys stop working to error, and its store’s ingestion fails naming the bucket', async () => {
    const created = await api(
      'POST',
      '/v1/buckets',
      createBody({ name: 'revoke me', bucket: 'acme-revoke', prefix: 'p/', credentials: accessKey(KEYS.revoked) }),
    );
    expect(created.status).toBe(201);
    ids.revokeBucket = created.body.id;
    const store: any = await client.stores.create({ name: 'revoked-store', bucket_id: ids.revokeBucket } as never);
    s3.keys.delete(KEYS.revoked.id); // the customer revokes the key

    const sf = await client.stores.files.uploadAndPoll({
      storeIdentifier: store.id,
      file: await toFile(Buffer.from('sloe gin notes'), 'sloe.txt', { type: 'text/plain' }),
      pollIntervalMs: 200,
    });
    expect(sf.status).toBe('failed');
    expect(sf.last_error).toMatchObject({ code: 'bucket_error' });
    expect((sf.last_error as any).message).toMatch(new RegExp(`^Bucket 'revoke me' \\(${ids.revokeBucket}\\): `));
    const bucket = await until(
      'the bucket’s status',
      () => api('GET', `/v1/buckets/${ids.revokeBucket}`),
      (r) => r.body.status === 'error',
    );
    expect(bucket.body.last_error).toMatch(/^Bucket 'revoke me' /);
    expect(Date.parse(bucket.body.last_validated_at)).toBeGreaterThan(Date.parse(created.body.last_validated_at) - 1);

    // new keys bring it back
    const rotated = await api('POST', `/v1/buckets/${ids.revokeBucket}/credentials`, {
      credentials: accessKey(KEYS.replacement),
    });
    expect(rotated.body).toMatchObject({ status: 'active', last_error: null, credentials_version: 2 });
    const next = await client.stores.files.uploadAndPoll({
      storeIdentifier: store.id,
      file: await toFile(Buffer.from('damson cheese notes'), 'damson.txt', { type: 'text/plain' }),
      pollIntervalMs: 200,
    });
    expect(next.status).toBe('completed');

    // deleted once no store uses it: gone from reads, its objects and then its sealed keys removed
    const ref = (await bucketEvents()).filter((e) => e.data.bucketId === ids.revokeBucket).at(-1)!.data
      .secretRef as string;
    expect((await vaultRows()).map((r) => r.ref)).toContain(ref);
    await client.stores.delete(store.id);
    const deleted = await api('DELETE', `/v1/buckets/${ids.revokeBucket}`);
    expect(deleted).toEqual({ status: 200, body: { id: ids.revokeBucket, deleted: true, object: 'bucket' } });
    expect((await api('GET', `/v1/buckets/${ids.revokeBucket}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/buckets/${ids.revokeBucket}`)).status).toBe(404);
    expect((await api('GET', '/v1/buckets')).body.data.map((b: any) => b.id)).not.toContain(ids.revokeBucket);
    await until(
      'the deleted bucket’s sealed keys',
      async () => (await vaultRows()).map((r) => r.ref),
      (refs) => !refs.includes(ref),
    );
    expect(await s3.listKeys('acme-revoke')).toEqual([]);
    const late: any = await client.stores
      .create({ name: 'too-late', bucket_id: ids.revokeBucket } as never)
      .catch((e: unknown) => e);
    expect(late.status).toBe(422);
    expect(late.error.detail[0]).toMatchObject({ loc: ['body', 'bucket_id'] });
  });

  it('keeps buckets to their organization and to unscoped keys', async () => {
    const org = /[0-9a-f-]{36}/.exec(await cli('orgs', 'create', '--name', 'other'))![0];
    const otherKey = /secret: +(\S+)/.exec(await cli('keys', 'create', '--org', org))![1];
    const other = async (method: string, path: string, body?: unknown) => {
      const res = await recordingFetch(`${server.baseURL}${path}`, {
        method,
        headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await other('GET', '/v1/buckets')).body.data).toEqual([]);
    expect((await other('GET', `/v1/buckets/${ids.keyBucket}`)).status).toBe(404);
    expect(
      (await other('POST', `/v1/buckets/${ids.keyBucket}/credentials`, { credentials: accessKey(KEYS.good) })).status,
    ).toBe(404);
    expect((await other('DELETE', `/v1/buckets/${ids.keyBucket}`)).status).toBe(404);
    const foreign = await other('POST', '/v1/stores', { name: 'foreign', bucket_id: ids.keyBucket });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(['body', 'bucket_id']);
    // another organization gets its own external id
    const refused = await other(
      'POST',
      '/v1/buckets',
      createBody({ bucket: 'acme-role', prefix: '', credentials: { type: 'assume_role', role_arn: ROLE } }),
    );
    expect(refused.status).toBe(422);
    const theirs = /with external id (larder-[0-9a-f-]{36})/.exec(refused.body.detail[0].msg)?.[1];
    expect(theirs).toBeDefined();
    expect(theirs).not.toBe(ids.externalId);

    const scoped = await api('POST', '/v1/api-keys', {
      name: 'scoped',
      scope: [{ method: 'create' }, { method: 'list' }, { method: 'read' }],
    });
    const byScoped = await recordingFetch(`${server.baseURL}/v1/buckets`, {
      headers: { authorization: `Bearer ${scoped.body.value}` },
    });
    expect(byScoped.status).toBe(403);
    expect(((await byScoped.json()) as any).message).toMatch(
      /Buckets can only be managed with a key that has no scope restrictions/,
    );
  });

  it('survives a master-key rotation (`secrets rotate`) and a restart: the buckets still work', async () => {
    const before = await vaultRows();
    const keyIdBefore = before[0].key_id;
    // the CLI against the running server's database and data directory (its keyring file)
    expect(await cli('secrets', 'rotate')).toMatch(/re-sealed: {2}1 secret\b/);
    const after = await vaultRows();
    expect(after.map((r) => r.ref)).toEqual(before.map((r) => r.ref));
    expect(new Set(after.map((r) => r.key_id))).toEqual(new Set([after[0].key_id]));
    expect(after[0].key_id).not.toBe(keyIdBefore);
    const keyring = JSON.parse(readFileSync(join(dataDir, 'secrets-keyring.json'), 'utf8'));
    expect(Object.keys(keyring.keys)).toEqual([after[0].key_id]); // the old master key is gone

    await server.stop();
    earlierLogs.push(server.output());
    server = await startServerProcess(env, port);
    client = new Mixedbread({
      apiKey: rootKey,
      baseURL: server.baseURL,
      maxRetries: 0,
      timeout: 60_000,
      fetch: recordingFetch,
    });
    const store: any = await client.stores.create({ name: 'after-restart', bucket_id: ids.keyBucket } as never);
    const sf = await client.stores.files.uploadAndPoll({
      storeIdentifier: store.id,
      file: await toFile(Buffer.from('rowan berry jelly'), 'rowan.txt', { type: 'text/plain' }),
      pollIntervalMs: 200,
    });
    expect(sf.status).toBe('completed');
    expect(await s3.listKeys('acme-docs', `larder/stores/${store.id}/files/${sf.id}/g1/`)).toHaveLength(3);
    expect(
      (await api('POST', `/v1/buckets/${ids.keyBucket}/credentials`, { credentials: accessKey(KEYS.good) })).body
        .credentials_version,
    ).toBe(3);
    // and an assume_role bucket still assumes its role
    const roleStore: any = await client.stores.create({ name: 'role-store', bucket_id: ids.roleBucket } as never);
    const viaRole = await client.stores.files.uploadAndPoll({
      storeIdentifier: roleStore.id,
      file: await toFile(Buffer.from('hawthorn ketchup'), 'haw.txt', { type: 'text/plain' }),
      pollIntervalMs: 200,
    });
    expect(viaRole.status).toBe('completed');
    expect(await s3.listKeys('acme-role', `stores/${roleStore.id}/`)).toHaveLength(3);
  });

  it('never shows a credential: not in a response, an event, a log line or the vault’s rows', async () => {
    const temporary = [...s3.keys.entries()]
      .filter(([id]) => id.startsWith('ASIA'))
      .flatMap(([id, k]) => [id, k.secretAccessKey, k.sessionToken!]);
    expect(temporary.length).toBeGreaterThan(0);
    const secrets = [
      ...Object.values(KEYS).flatMap((k) => [k.secret]),
      ...Object.values(KEYS).map((k) => k.id),
      ...temporary,
    ];
    const events = (
      await pool.query(
        `SELECT stream_id, type, data::text AS data, metadata::text AS metadata FROM larder_events.events`,
      )
    ).rows.map((r) => `${r.stream_id} ${r.type} ${r.data} ${r.metadata}`);
    const vault = (await vaultRows()).map((r) => r.sealed);
    const readModels = (await pool.query(`SELECT row_to_json(b)::text AS row FROM buckets_v1 b`)).rows.map(
      (r) => r.row,
    );
    const logs = [...earlierLogs, server.output()].join('\n');
    expect(logs).toMatch(/removed 3 objects of store/); // the first process's lines are there too
    expect(responses.length).toBeGreaterThan(30);
    expect(events.length).toBeGreaterThan(30);
    expect(logs.length).toBeGreaterThan(0);
    for (const s of secrets) {
      for (const [where, texts] of [
        ['responses', responses],
        ['events', events],
        ['vault', vault],
        ['read model', readModels],
        ['logs', [logs]],
      ] as const) {
        // access key ids may not appear either: events and responses carry only their last four characters
        expect({ secret: s.slice(0, 8), where, found: texts.some((t) => t.includes(s)) }).toEqual({
          secret: s.slice(0, 8),
          where,
          found: false,
        });
      }
    }
  });
});

function randomUuid(): string {
  return '5b1e0c39-97a4-4f6e-9d46-1f2d3c4b5a69';
}

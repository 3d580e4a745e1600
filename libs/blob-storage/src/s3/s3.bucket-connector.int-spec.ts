import { randomBytes } from 'crypto';
import { createServer } from 'net';
import { Readable } from 'stream';
import { OutboundPolicy } from '@larder/outbound';
import { BucketAccessError, BucketCredentials, BucketLocation } from '../bucket-connector.port';
import { S3Double, startS3Double } from '../testing/s3-double';
import { startStsDouble, StsDouble } from '../testing/sts-double';
import { S3BucketConnector } from './s3.bucket-connector';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function failure(p: Promise<unknown>): Promise<BucketAccessError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof BucketAccessError)) throw new Error(`expected a BucketAccessError, got ${String(err)}`);
  return err;
}

describe('S3BucketConnector against the S3 and STS doubles', () => {
  let s3: S3Double;
  let sts: StsDouble;
  let connector: S3BucketConnector;
  let dead: number;
  const bucket = `cust-${randomBytes(3).toString('hex')}`;
  const good = {
    type: 'access_key',
    accessKeyId: 'AKIAGOODKEY0001',
    secretAccessKey: 'good/secret+value0001',
  } as const;
  const at = (over: Partial<BucketLocation> = {}): BucketLocation => ({
    bucket,
    region: 'eu-west-1',
    endpointUrl: s3.endpoint,
    prefix: 'team-a',
    sseKmsKeyId: null,
    ...over,
  });

  beforeAll(async () => {
    s3 = await startS3Double();
    sts = await startStsDouble(s3);
    dead = await closedPort();
    await s3.createBucket(bucket);
    s3.keys.set(good.accessKeyId, { secretAccessKey: good.secretAccessKey, buckets: [bucket] });
    s3.keys.set('AKIAREADONLY0001', { secretAccessKey: 'ro-secret', buckets: [bucket], readOnly: true });
    sts.callers.set('AKIALARDER000001', 'larder-own-secret');
    sts.roles.set('arn:aws:iam::123456789012:role/larder', {
      externalId: 'ext-123',
      trustedCallers: ['AKIALARDER000001'],
      permissions: { buckets: [bucket] },
    });
    connector = new S3BucketConnector({
      outbound: new OutboundPolicy([`127.0.0.1:${s3.port}`, `127.0.0.1:${sts.port}`, `127.0.0.1:${dead}`]),
      sts: {
        endpoint: sts.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIALARDER000001', secretAccessKey: 'larder-own-secret' },
      },
      connectionTimeoutMs: 2_000,
      requestTimeoutMs: 5_000,
    });
  });

  afterAll(async () => {
    connector.close();
    await sts.close();
    await s3.close();
  });

  it('probes with a working key: writes, reads and deletes below the prefix, leaving nothing', async () => {
    await connector.probe(at(), good);
    expect(s3.log.filter((l) => l.accessKeyId === good.accessKeyId).map((l) => `${l.method} ${l.status}`)).toEqual([
      'PUT 200',
      'GET 200',
      'DELETE 204',
    ]);
    expect(s3.log.every((l) => l.path.startsWith(`/${bucket}/team-a/.larder-probe/`))).toBe(true);
    expect(await s3.listKeys(bucket)).toEqual([]);
  });

  it('stores, lists and deletes by prefix through the opened storage', async () => {
    const storage = connector.open(at(), good);
    await storage.put('stores/s1/files/f1/a.txt', Readable.from([Buffer.from('one')]));
    await storage.put('stores/s1/files/f2/b.txt', Readable.from([Buffer.from('two')]));
    expect(await storage.size('stores/s1/files/f1/a.txt')).toBe(3);
    expect((await storage.list('stores/s1/')).sort()).toEqual(['stores/s1/files/f1/a.txt', 'stores/s1/files/f2/b.txt']);
    expect(await s3.listKeys(bucket, 'team-a/')).toHaveLength(2);
    expect(await storage.deletePrefix('stores/s1/')).toBe(2);
    expect(await s3.listKeys(bucket)).toEqual([]);
  });

  it('cuts off an object larger than the limit', async () => {
    const small = new S3BucketConnector({
      outbound: new OutboundPolicy([`127.0.0.1:${s3.port}`]),
      sts: { endpoint: null, region: 'us-east-1' },
      maxObjectBytes: 1000,
    });
    try {
      const storage = small.open(at(), good);
      await storage.put('big', Readable.from([Buffer.alloc(5000, 1)]));
      const err = await failure(storage.readAll('big'));
      expect(err.message).toBe(`bucket ${bucket} answered more than 1000 bytes for big`);
      await storage.delete('big');
    } finally {
      small.close();
    }
  });

  it('names what is wrong, and never a credential', async () => {
    const cases: [string, () => Promise<unknown>, string, RegExp][] = [
      [
        'wrong secret',
        () => connector.probe(at(), { ...good, secretAccessKey: 'not-the-secret' }),
        'credentials',
        /SignatureDoesNotMatch/,
      ],
      [
        'unknown key',
        () => connector.probe(at(), { ...good, accessKeyId: 'AKIANOSUCHKEY001' }),
        'credentials',
        /InvalidAccessKeyId/,
      ],
      [
        'read-only key',
        () =>
          connector.probe(at(), { type: 'access_key', accessKeyId: 'AKIAREADONLY0001', secretAccessKey: 'ro-secret' }),
        'denied',
        /writing a test object: access to bucket .* was denied/,
      ],
      ['missing bucket', () => connector.probe(at({ bucket: 'no-such-bucket' }), good), 'denied', /AccessDenied/],
      [
        'unreachable endpoint',
        () => connector.probe(at({ endpointUrl: `http://127.0.0.1:${dead}` }), good),
        'unreachable',
        /could not be reached \(ECONNREFUSED\)/,
      ],
      [
        'metadata address',
        () => connector.probe(at({ endpointUrl: 'http://169.254.169.254' }), good),
        'refused',
        /link-local/,
      ],
      [
        'private address',
        () => connector.probe(at({ endpointUrl: 'http://10.0.0.1:9000' }), good),
        'refused',
        /private/,
      ],
      [
        'loopback by name',
        () => connector.probe(at({ endpointUrl: `http://localhost:${dead + 1}` }), good),
        'refused',
        /localhost resolves to .*loopback/,
      ],
    ];
    for (const [name, p, kind, message] of cases) {
      const err = await failure(p());
      expect({ name, failure: err.failure }).toEqual({ name, failure: kind });
      expect(err.message).toMatch(message);
      expect(err.message).not.toContain(good.secretAccessKey);
      expect(err.message).not.toContain('not-the-secret');
      expect(err.message).not.toContain('ro-secret');
    }
  });

  it('refuses a host name that rebinds to a loopback address between the check and the connection', async () => {
    let lookups = 0;
    const rebinding = new S3BucketConnector({
      // the first answer (the check before the probe) is public, every later one (the connection) loopback
      outbound: new OutboundPolicy([`127.0.0.1:${s3.port}`], {
        resolver: async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
      }),
      sts: { endpoint: null, region: 'us-east-1' },
    });
    try {
      const err = await failure(rebinding.probe(at({ endpointUrl: `http://rebind.example:${dead}` }), good));
      expect(lookups).toBeGreaterThanOrEqual(2);
      expect(err.failure).toBe('refused');
      expect(err.message).toMatch(/rebind\.example resolves to 127\.0\.0\.1, a loopback address/);
    } finally {
      rebinding.close();
    }
  });

  it('says what it knows of a refused request without an error body (HEAD)', async () => {
    const storage = connector.open(at(), { ...good, accessKeyId: 'AKIAREVOKED00001' });
    const err = await failure(storage.size('anything'));
    expect(err.failure).toBe('denied');
    expect(err.message).toBe(
      `access to bucket ${bucket} was denied (HTTP 403 without an error body: the key was revoked, or it lacks the permission)`,
    );
  });

  it('tells a missing bucket from a forbidden one when the key may see it', async () => {
    s3.keys.set('AKIAALLBUCKETS01', { secretAccessKey: 'all-secret', buckets: '*' });
    const err = await failure(
      connector.probe(at({ bucket: 'no-such-bucket' }), {
        type: 'access_key',
        accessKeyId: 'AKIAALLBUCKETS01',
        secretAccessKey: 'all-secret',
      }),
    );
    expect(err.failure).toBe('no_such_bucket');
  });

  it('assumes the role through STS with the external id, then uses the temporary credentials', async () => {
    const role: BucketCredentials = {
      type: 'assume_role',
      roleArn: 'arn:aws:iam::123456789012:role/larder',
      externalId: 'ext-123',
      sessionName: 'larder-test',
    };
    await connector.probe(at(), role);
    expect(sts.calls.at(-1)).toMatchObject({
      externalId: 'ext-123',
      sessionName: 'larder-test',
      caller: 'AKIALARDER000001',
      outcome: 'ok',
    });
    const temporary = s3.log.at(-1)!.accessKeyId!;
    expect(temporary.startsWith('ASIA')).toBe(true);

    const wrong = await failure(connector.probe(at(), { ...role, externalId: 'someone-else' }));
    expect(wrong.failure).toBe('role');
    expect(wrong.message).toMatch(
      /STS refused to let Larder assume role arn:aws:iam::123456789012:role\/larder with external id someone-else \(AccessDenied/,
    );

    const unknown = await failure(connector.probe(at(), { ...role, roleArn: 'arn:aws:iam::123456789012:role/other' }));
    expect(unknown.failure).toBe('role');
  });

  it('reports Larder’s own identity, not the role, when STS refuses the caller', async () => {
    const bad = new S3BucketConnector({
      outbound: new OutboundPolicy([`127.0.0.1:${s3.port}`, `127.0.0.1:${sts.port}`]),
      sts: {
        endpoint: sts.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIALARDER000001', secretAccessKey: 'wrong' },
      },
    });
    try {
      const err = await failure(
        bad.probe(at(), {
          type: 'assume_role',
          roleArn: 'arn:aws:iam::123456789012:role/larder',
          externalId: 'ext-123',
          sessionName: 'larder-test',
        }),
      );
      expect(err.message).toMatch(/Larder's own AWS identity could not call STS \(SignatureDoesNotMatch/);
    } finally {
      bad.close();
    }
  });

  it('refuses an STS endpoint the outbound policy does not allow', async () => {
    const guarded = new S3BucketConnector({
      outbound: new OutboundPolicy([`127.0.0.1:${s3.port}`]),
      sts: {
        endpoint: sts.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIALARDER000001', secretAccessKey: 'larder-own-secret' },
      },
    });
    try {
      const err = await failure(
        guarded.probe(at(), {
          type: 'assume_role',
          roleArn: 'arn:aws:iam::123456789012:role/larder',
          externalId: 'ext-123',
          sessionName: 'larder-test',
        }),
      );
      expect(err.failure).toBe('refused');
    } finally {
      guarded.close();
    }
  });
});

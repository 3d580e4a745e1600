import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { outboundFetch, OutboundFailure } from './outbound-fetch';
import { OutboundPolicy, OutboundRefusedError } from './outbound-policy';

/** Real HTTP servers on loopback: one the operator allows, one nobody allowed. */
describe('outbound fetch under the policy', () => {
  let allowed: Server;
  let other: Server;
  let allowedPort: number;
  let otherPort: number;
  let policy: OutboundPolicy;
  const hits: string[] = [];

  const listen = (server: Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );

  beforeAll(async () => {
    other = createServer((req, res) => {
      hits.push(`other ${req.url}`);
      res.end('internal secret');
    });
    otherPort = await listen(other);
    allowed = createServer((req, res) => {
      hits.push(`allowed ${req.url} auth=${req.headers.authorization ?? ''}`);
      if (req.url === '/to-other') return res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/x` }).end();
      if (req.url === '/to-metadata')
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/to-self') return res.writeHead(307, { location: `/ok` }).end();
      if (req.url === '/big') return res.end(Buffer.alloc(64 * 1024, 97));
      if (req.url === '/hang') return; // never answers
      res.end(JSON.stringify({ ok: true, method: req.method }));
    });
    allowedPort = await listen(allowed);
    policy = new OutboundPolicy([`127.0.0.1:${allowedPort}`]);
  });

  afterAll(async () => {
    allowed.closeAllConnections();
    other.closeAllConnections();
    await new Promise((r) => allowed.close(r));
    await new Promise((r) => other.close(r));
  });

  it('reaches an allowed address', async () => {
    const res = await outboundFetch(policy, `http://127.0.0.1:${allowedPort}/ok`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ ok: true, method: 'POST' });
  });

  it.each([
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/', /link-local/],
    ['a private address', 'http://10.0.0.1/', /private/],
    ['loopback on a port nobody allowed', () => `http://127.0.0.1:${otherPort}/`, /loopback/],
    ['loopback through a DNS name', () => `http://localhost:${otherPort}/`, /localhost resolves to .* loopback/],
    ['IPv6 loopback', () => `http://[::1]:${otherPort}/`, /loopback/],
    ['an IPv4-mapped metadata address', 'http://[::ffff:169.254.169.254]/', /link-local/],
    ['the unspecified address', () => `http://0.0.0.0:${otherPort}/`, /unspecified/],
  ])('refuses %s before connecting', async (_name, target, why) => {
    const before = hits.length;
    const url = typeof target === 'function' ? target() : target;
    const started = Date.now();
    const err = await outboundFetch(policy, url, { timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundFailure);
    expect((err as OutboundFailure).kind).toBe('refused');
    expect((err as Error).message).toMatch(why);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hits.length).toBe(before);
  });

  it('re-checks every redirect and refuses one to an internal address', async () => {
    for (const path of ['/to-other', '/to-metadata']) {
      const err = await outboundFetch(policy, `http://127.0.0.1:${allowedPort}${path}`, { maxRedirects: 3 }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OutboundFailure);
      expect((err as OutboundFailure).message).toMatch(/^redirected to .*(loopback|link-local)/);
    }
    expect(hits.some((h) => h.startsWith('other'))).toBe(false);
    const followed = await outboundFetch(policy, `http://127.0.0.1:${allowedPort}/to-self`, { maxRedirects: 1 });
    expect(followed.status).toBe(200);
    const notFollowed = await outboundFetch(policy, `http://127.0.0.1:${allowedPort}/to-self`);
    expect(notFollowed.status).toBe(307);
  });

  it('refuses a DNS answer that changes to an internal address after the check (rebinding)', async () => {
    let calls = 0;
    const rebinding = new OutboundPolicy([], {
      // first answer public (passes the check), every later one loopback (the connection)
      resolver: async () =>
        calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }],
    });
    const before = hits.length;
    const err = await outboundFetch(rebinding, `http://rebind.example:${otherPort}/`, { timeoutMs: 3_000 }).catch(
      (e: unknown) => e,
    );
    expect(calls).toBe(2);
    expect((err as OutboundFailure).kind).toBe('refused');
    expect((err as Error).message).toMatch(/rebind\.example resolves to 127\.0\.0\.1/);
    expect(hits.length).toBe(before);
  });

  it('caps the body and the time', async () => {
    const big = await outboundFetch(policy, `http://127.0.0.1:${allowedPort}/big`, { maxBytes: 1024 }).catch(
      (e: unknown) => e,
    );
    expect((big as OutboundFailure).kind).toBe('too_large');
    const slow = await outboundFetch(policy, `http://127.0.0.1:${allowedPort}/hang`, { timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect((slow as OutboundFailure).kind).toBe('timeout');
  });

  it('refuses schemes other than http(s) and credentials in the URL, without echoing them', async () => {
    await expect(policy.check('file:///etc/passwd')).rejects.toThrow(/scheme/);
    await expect(policy.check('gopher://example.com/')).rejects.toThrow(/scheme/);
    const err = (await policy
      .check(`http://user:hunter2@127.0.0.1:${allowedPort}/`)
      .catch((e: unknown) => e)) as OutboundRefusedError;
    expect(err.message).toMatch(/credentials/);
    expect(err.message).not.toContain('hunter2');
  });

  it('reads the allow list: addresses, CIDRs, host names, ports', () => {
    const p = new OutboundPolicy(['10.0.0.0/8', '[::1]:4318', 'minio.internal:9000', '127.0.0.1']);
    expect(p.refusal('10.2.3.4', 80)).toBeNull();
    expect(p.refusal('::1', 4318)).toBeNull();
    expect(p.refusal('::1', 4319)).toMatch(/loopback/);
    expect(p.refusal('192.168.0.9', 9000, 'minio.internal')).toBeNull();
    expect(p.refusal('192.168.0.9', 9001, 'minio.internal')).toMatch(/private/);
    expect(p.refusal('127.0.0.1', 1234)).toBeNull();
    expect(p.refusal('169.254.169.254', 80)).toMatch(/metadata/);
    expect(() => new OutboundPolicy(['not a host!'])).toThrow(/LARDER_OUTBOUND_ALLOW/);
  });
});

/** Two allowed origins on loopback: A redirects to B, which records what reached it. */
describe('outbound fetch across origins', () => {
  let a: Server;
  let b: Server;
  let aPort: number;
  let bPort: number;
  let policy: OutboundPolicy;
  const atB: Array<{ method?: string; headers: Record<string, unknown>; body: string }> = [];

  const listen = (server: Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );

  beforeAll(async () => {
    b = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        atB.push({ method: req.method, headers: req.headers, body });
        res.end('{}');
      });
    });
    bPort = await listen(b);
    a = createServer((req, res) => {
      req.resume();
      const status = Number(req.url?.slice(1)) || 307;
      const target = status === 300 ? `http://127.0.0.1:${aPort}/307` : `http://localhost:${bPort}/v1/traces`;
      res.writeHead(status === 300 ? 307 : status, { location: target }).end();
    });
    aPort = await listen(a);
    policy = new OutboundPolicy([`127.0.0.1:${aPort}`, `127.0.0.1:${bPort}`, `localhost:${bPort}`]);
  });

  afterAll(async () => {
    a.closeAllConnections();
    b.closeAllConnections();
    await new Promise((r) => a.close(r));
    await new Promise((r) => b.close(r));
  });

  it.each([
    ['307 (body kept)', '/307', 'POST', '{"spans":[]}'],
    ['308 (body kept)', '/308', 'POST', '{"spans":[]}'],
    ['302 (turned into a GET)', '/302', 'GET', ''],
    ['303 (turned into a GET)', '/303', 'GET', ''],
    ['a same-origin hop, then 307', '/300', 'POST', '{"spans":[]}'],
  ])('a redirect to another origin by %s carries none of the configured headers', async (_how, path, method, body) => {
    atB.length = 0;
    const headers = {
      'x-secret': 'hunter2',
      authorization: 'Bearer sk-live',
      'X-Api-Key': 'key-1',
      'x-honeycomb-team': 'team-key',
      'content-type': 'application/json',
    };
    const res = await outboundFetch(policy, `http://127.0.0.1:${aPort}${path}`, {
      method: 'POST',
      headers,
      body: '{"spans":[]}',
      maxRedirects: 3,
    });
    expect(res.status).toBe(200);
    expect(atB).toHaveLength(1);
    const seen = atB[0];
    expect([seen.method, seen.body]).toEqual([method, body]);
    expect(JSON.stringify(seen.headers)).not.toMatch(/hunter2|sk-live|key-1|team-key/);
    expect(
      Object.keys(seen.headers).filter(
        (k) => !['host', 'connection', 'content-length', 'transfer-encoding', 'content-type'].includes(k),
      ),
    ).toEqual([]);
    // the body's format goes along with the body only
    expect(seen.headers['content-type']).toBe(body ? 'application/json' : undefined);
  });
});

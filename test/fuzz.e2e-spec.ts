import { writeFileSync } from 'fs';
import fc from 'fast-check';
import { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { closeAgent, contractViolation, RawResponse, send, sendJson } from './support/fuzz-http';
import { FuzzFixture, FuzzRequest, OpenApiDocument, requestArbitrary, ResourcePool } from './support/fuzz-requests';

/**
 * Property-based fuzzing of every route of the service's own OpenAPI document: valid
 * and broken path parameters, queries, bodies and headers, built with fast-check from the operations'
 * schemas, sent as raw HTTP to the whole API in this process (machine's PostgreSQL). Properties: no
 * answer is a 5xx, every error has the contract's shape, no key acts on another organization's
 * resource, a read-only key never writes, and the server is alive and consistent afterwards.
 *
 * FUZZ_SEED (default 19), FUZZ_RUNS (default 3000), FUZZ_CONCURRENCY (default 4) and FUZZ_OPERATIONS (a
 * regular expression over operation ids and `METHOD /path`) change the run;
 * FUZZ_REPORT=<file> writes the summary and findings there as JSON.
 *
 * Side effects that would destroy the fixture are kept away from it: deletes, revokes, rerolls, aborts
 * and completes only get the throwaway pool's ids (or random ones), and the key the suite
 * authenticates with is in no pool, so it is never deleted, revoked or rerolled. Every other route
 * (creates, updates, copies, uploads, re-ingestion with the root key) runs against the real fixture.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 19);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const CONCURRENCY = Math.max(1, Number(process.env.FUZZ_CONCURRENCY ?? 4));
/** Only the operations whose id or `METHOD /path` matches (e.g. `FUZZ_OPERATIONS=rules` to dig into one area). */
const ONLY = process.env.FUZZ_OPERATIONS ? new RegExp(process.env.FUZZ_OPERATIONS) : undefined;

jest.setTimeout(600_000);

interface Outcome {
  request: FuzzRequest;
  response?: RawResponse;
  error?: string;
  logs: string[];
}

const describeRequest = (r: FuzzRequest) => {
  const body =
    r.body === undefined
      ? ''
      : r.body.length > 600
        ? `${r.body.subarray(0, 300).toString('utf8')}… (${r.body.length} bytes)`
        : r.body.toString('utf8');
  const headers = Object.fromEntries(
    Object.entries(r.headers).map(([k, v]) => [k, v.length > 200 ? `${v.slice(0, 100)}… (${v.length} chars)` : v]),
  );
  return `${r.method} ${r.path.length > 400 ? `${r.path.slice(0, 300)}… (${r.path.length} chars)` : r.path}\n  operation: ${r.operation} [${r.labels.join(', ')}]\n  headers: ${JSON.stringify(headers)}\n  body: ${JSON.stringify(body)}`;
};

/** Server log lines (Nest writes them to stdout/stderr), captured while the fuzz runs so each 5xx comes with its stack. */
class LogCapture {
  private lines: Array<{ at: number; text: string }> = [];
  private restore: Array<() => void> = [];

  start() {
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      // swallowed while the fuzz runs (thousands of warnings); kept for the findings
      stream.write = (chunk: unknown) => {
        this.lines.push({ at: Date.now(), text: String(chunk) });
        if (this.lines.length > 20_000) this.lines.splice(0, 10_000);
        return true;
      };
      this.restore.push(() => (stream.write = original));
    }
  }

  between(from: number, to: number): string[] {
    return this.lines.filter((l) => l.at >= from && l.at <= to + 5).map((l) => l.text.trim());
  }

  stop() {
    for (const r of this.restore.splice(0)) r();
  }
}

describe('fuzzing every route of the OpenAPI document (fast-check, raw HTTP)', () => {
  let t: TestLarder;
  let fx: FuzzFixture;
  let doc: OpenApiDocument;
  const outcomes: Outcome[] = [];

  const pool = (): ResourcePool => ({ stores: [], files: [], rules: [], uploads: [], apiKeys: [] });

  /** Stores, files, rules, uploads and keys of one organization, so path parameters can name real resources. */
  async function populate(
    key: string,
    prefix: string,
    into: { stable: ResourcePool; throwaway: ResourcePool },
    signed: FuzzFixture['signed'],
    sizes = { stores: 2, throwawayStores: 3, files: 3, throwawayFiles: 3 },
  ) {
    const c = t.client(key);
    const upload = async (name: string, text: string) =>
      (await c.files.create({ file: await toFile(Buffer.from(text), name, { type: 'text/plain' }) })).id;
    for (let i = 0; i < sizes.files; i++)
      into.stable.files.push(
        await upload(
          `${prefix}-${i}.txt`,
          `${prefix} larder shelf ${i}: sourdough bread, rye and butter; honey jar ${i}.`,
        ),
      );
    for (let i = 0; i < sizes.throwawayFiles; i++)
      into.throwaway.files.push(await upload(`${prefix}-t${i}.txt`, `throwaway ${i} pickles and cheese`));
    const mkStore = async (name: string, fileIds: string[]) => {
      const s = await sendJson<{ id: string; name: string }>(t.baseURL, key, 'POST', '/v1/stores', {
        name,
        description: `fuzz ${name}`,
        metadata: { kind: 'fuzz' },
      });
      for (const f of fileIds)
        await sendJson(t.baseURL, key, 'POST', `/v1/stores/${s.id}/files`, {
          file_id: f,
          metadata: { kind: 'doc', n: f.slice(0, 4) },
        });
      return { id: s.id, name: s.name };
    };
    for (let i = 0; i < sizes.stores; i++)
      into.stable.stores.push(await mkStore(`${prefix}-store-${i}`, into.stable.files));
    for (let i = 0; i < sizes.throwawayStores; i++)
      into.throwaway.stores.push(await mkStore(`${prefix}-throwaway-${i}`, into.throwaway.files.slice(i, i + 1)));
    const rule = async (storeId: string, q: string) =>
      (
        await sendJson<{ id: string }>(t.baseURL, key, 'POST', `/v1/stores/${storeId}/rules`, {
          query: q,
          rules: [{ type: 'query_string', substitution: 'sourdough bread' }],
        })
      ).id;
    into.stable.rules.push({ storeId: into.stable.stores[0].id, id: await rule(into.stable.stores[0].id, 'bread') });
    for (const s of into.throwaway.stores.slice(0, 2))
      into.throwaway.rules.push({ storeId: s.id, id: await rule(s.id, 'cheese') });
    for (const target of [into.stable, into.throwaway]) {
      for (let i = 0; i < 2; i++) {
        const u = await sendJson<{ id: string; part_urls: Array<{ part_number: number; url: string }> }>(
          t.baseURL,
          key,
          'POST',
          '/v1/files/uploads',
          {
            filename: `${prefix}-multi-${i}.bin`,
            file_size: 12,
            mime_type: 'application/octet-stream',
            part_count: 2,
          },
        );
        target.uploads.push(u.id);
        for (const p of u.part_urls) {
          const url = new URL(p.url);
          (signed['PUT /v1/files/uploads/{upload_id}/parts/{part_number}'] ??= []).push({
            params: { upload_id: u.id, part_number: String(p.part_number) },
            query: Object.fromEntries(url.searchParams),
          });
        }
      }
    }
    for (let i = 0; i < 3; i++)
      into.throwaway.apiKeys.push(
        (await sendJson<{ id: string }>(t.baseURL, key, 'POST', '/v1/api-keys', { name: `${prefix}-throwaway-${i}` }))
          .id,
      );
    // signed content URLs of store files
    for (const s of [...into.stable.stores.slice(0, 1), ...into.throwaway.stores.slice(0, 1)]) {
      const files = await sendJson<{ data: Array<{ id: string; content_url: string }> }>(
        t.baseURL,
        key,
        'POST',
        `/v1/stores/${s.id}/files/list`,
        {},
      );
      for (const f of files.data) {
        const url = new URL(f.content_url);
        (signed['GET /v1/stores/{store_identifier}/files/{file_identifier}/content'] ??= []).push({
          params: { store_identifier: s.id, file_identifier: f.id },
          query: Object.fromEntries(url.searchParams),
        });
      }
    }
  }

  /** Polls until no file of these stores is pending or in progress (bounded). */
  async function settle(key: string, storeIds: string[], ms = 60_000) {
    const end = Date.now() + ms;
    for (const id of storeIds) {
      for (;;) {
        const s = await sendJson<{ file_counts: { pending: number; in_progress: number } }>(
          t.baseURL,
          key,
          'GET',
          `/v1/stores/${id}`,
        );
        if (!s.file_counts.pending && !s.file_counts.in_progress) break;
        if (Date.now() > end) throw new Error(`store ${id} still ingesting: ${JSON.stringify(s.file_counts)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  beforeAll(async () => {
    t = await startTestLarder();
    const main = await t.newOrganization('fuzz');
    const other = await t.newOrganization('fuzz-other');
    // newOrganization appends through the command bus without waiting for the key lookup's projection
    for (const key of [main.apiKey, other.apiKey, t.rootKey]) {
      const end = Date.now() + 30_000;
      while (
        (await send(t.baseURL, { method: 'GET', path: '/v1/stores', headers: { authorization: `Bearer ${key}` } }))
          .status !== 200
      ) {
        if (Date.now() > end) throw new Error('a fixture key never became usable');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const signed: FuzzFixture['signed'] = {};
    fx = {
      organizationId: main.organizationId,
      otherOrganizationId: other.organizationId,
      keys: { main: main.apiKey, scoped: '', otherOrganization: other.apiKey, revoked: '', root: t.rootKey },
      stable: pool(),
      throwaway: pool(),
      other: pool(),
      signed,
    };
    await populate(main.apiKey, 'fuzz', fx, signed);
    const otherSigned: FuzzFixture['signed'] = {};
    const otherPools = { stable: pool(), throwaway: pool() };
    await populate(other.apiKey, 'other', otherPools, otherSigned, {
      stores: 1,
      throwawayStores: 0,
      files: 1,
      throwawayFiles: 0,
    });
    fx.other = {
      ...otherPools.stable,
      apiKeys: otherPools.throwaway.apiKeys,
      uploads: [...otherPools.stable.uploads, ...otherPools.throwaway.uploads],
    };
    fx.keys.scoped = (
      await sendJson<{ value: string }>(t.baseURL, main.apiKey, 'POST', '/v1/api-keys', {
        name: 'read-stores-only',
        scope: [{ method: 'read', resource_type: 'store' }],
      })
    ).value;
    const revoked = await sendJson<{ id: string; value: string }>(t.baseURL, main.apiKey, 'POST', '/v1/api-keys', {
      name: 'revoked',
    });
    await sendJson(t.baseURL, main.apiKey, 'POST', `/v1/api-keys/${revoked.id}/revoke`);
    fx.keys.revoked = revoked.value;
    await settle(
      main.apiKey,
      [...fx.stable.stores, ...fx.throwaway.stores].map((s) => s.id),
    );
    doc = (await (await fetch(`${t.baseURL}/openapi.json`)).json()) as OpenApiDocument;
  }, 240_000);

  afterAll(async () => {
    closeAgent();
    await t?.close();
  });

  it(`answers ${RUNS} generated requests (seed ${SEED}) with no 5xx, every error in the contract's shape`, async () => {
    const { operations, arbitrary } = requestArbitrary(doc, fx, { only: ONLY });
    if (!ONLY) expect(operations.length).toBeGreaterThanOrEqual(50);
    const t0 = Date.now();
    const requests = fc.sample(arbitrary, { seed: SEED, numRuns: RUNS });
    const generatedMs = Date.now() - t0;

    const logs = new LogCapture();
    logs.start();
    try {
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const request = requests[next++];
          const from = Date.now();
          try {
            const response = await send(t.baseURL, request);
            outcomes.push({ request, response, logs: response.status >= 500 ? logs.between(from, Date.now()) : [] });
          } catch (err) {
            outcomes.push({ request, error: (err as Error).message, logs: logs.between(from, Date.now()) });
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      logs.stop();
    }
    const runMs = Date.now() - t0 - generatedMs;

    // what came back
    const byStatus: Record<string, number> = {};
    const byOperation: Record<string, Record<string, number>> = {};
    for (const o of outcomes) {
      const s = o.response ? String(o.response.status) : 'no answer';
      byStatus[s] = (byStatus[s] ?? 0) + 1;
      (byOperation[o.request.operation] ??= {})[s] = (byOperation[o.request.operation]?.[s] ?? 0) + 1;
    }
    const serverErrors = outcomes.filter((o) => !o.response || o.response.status >= 500);
    const shapeErrors = outcomes
      .filter((o) => o.response && o.response.status < 500)
      .map((o) => ({ o, why: contractViolation(o.response!) }))
      .filter((x) => x.why);
    const crossTenant = outcomes.filter((o) => o.request.crossTenant && o.response && o.response.status < 400);
    const scopeLeaks = outcomes.filter((o) => o.request.needsWriteScope && o.response && o.response.status < 400);
    const realHits = outcomes.filter(
      (o) => o.response && o.response.status < 300 && o.request.operation.includes('{'),
    ).length;

    const summary = {
      seed: SEED,
      requests: outcomes.length,
      concurrency: CONCURRENCY,
      generated_ms: generatedMs,
      run_ms: runMs,
      operations: operations.length,
      by_status: byStatus,
      successful_on_parameterised_routes: realHits,
      by_operation: byOperation,
      findings: {
        server_errors: serverErrors.map((o) => ({
          request: describeRequest(o.request),
          status: o.response?.status ?? null,
          error: o.error ?? null,
          body: o.response?.body.slice(0, 500),
          logs: o.logs.join('\n').slice(0, 4000),
        })),
        shape_errors: shapeErrors.map(({ o, why }) => ({
          request: describeRequest(o.request),
          status: o.response!.status,
          why,
        })),
        cross_tenant: crossTenant.map((o) => ({
          request: describeRequest(o.request),
          status: o.response!.status,
          body: o.response!.body.slice(0, 300),
        })),
        scope_leaks: scopeLeaks.map((o) => ({
          request: describeRequest(o.request),
          status: o.response!.status,
          body: o.response!.body.slice(0, 300),
        })),
      },
    };
    if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(summary, null, 2));
    // eslint-disable-next-line no-console -- the run's numbers are the point of this suite
    console.log(
      `fuzz: seed ${SEED}, ${outcomes.length} requests over ${operations.length} operations in ${(runMs / 1000).toFixed(1)} s (concurrency ${CONCURRENCY}); by status ${JSON.stringify(byStatus)}; ` +
        `${realHits} successes on routes with path parameters; ${serverErrors.length} 5xx/no answer, ${shapeErrors.length} off-contract errors, ${crossTenant.length} cross-tenant successes, ${scopeLeaks.length} writes by a read-only key`,
    );
    for (const f of summary.findings.server_errors.slice(0, 10))
      // eslint-disable-next-line no-console
      console.log(`5xx: ${f.status ?? f.error}\n${f.request}\n  answer: ${f.body}\n  log: ${f.logs}`);

    expect(outcomes.length).toBe(RUNS);
    // every operation was exercised, and not only with garbage
    expect(operations.filter((op) => !byOperation[op.route]).map((op) => op.route)).toEqual([]);
    expect(summary.findings.server_errors.map((f) => `${f.status ?? f.error}: ${f.request}`)).toEqual([]);
    expect(summary.findings.shape_errors.map((f) => `${f.status} ${f.why}: ${f.request}`)).toEqual([]);
    expect(summary.findings.cross_tenant.map((f) => `${f.status}: ${f.request}`)).toEqual([]);
    expect(summary.findings.scope_leaks.map((f) => `${f.status}: ${f.request}`)).toEqual([]);
    if (!ONLY) expect(realHits).toBeGreaterThan(RUNS / 40);
  });

  it('is alive and consistent afterwards: info, readiness, and a list / create / upload / search round trip', async () => {
    expect((await send(t.baseURL, { method: 'GET', path: '/' })).status).toBe(200);
    expect((await send(t.baseURL, { method: 'GET', path: '/health/live' })).status).toBe(200);
    // the projections are not stuck and catch up after the storm
    const end = Date.now() + 60_000;
    let ready: RawResponse;
    for (;;) {
      ready = await send(t.baseURL, { method: 'GET', path: '/health/ready' });
      if (ready.status === 200 || Date.now() > end) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect([ready.status, ready.status === 200 ? '' : ready.body]).toEqual([200, '']);

    const key = fx.keys.main;
    const c = t.client(key);
    const before = await sendJson<{ data: Array<{ id: string }> }>(t.baseURL, key, 'GET', '/v1/stores?limit=100');
    expect(before.data.length).toBeGreaterThan(0);
    const store = await c.stores.create({ name: 'after-the-fuzz', metadata: { checked: true } });
    expect((await c.stores.retrieve(store.id)).name).toBe('after-the-fuzz');
    const file = await c.stores.files.upload({
      storeIdentifier: store.id,
      file: await toFile(Buffer.from('The quince preserve sits on the top shelf of the larder.'), 'quince.txt', {
        type: 'text/plain',
      }),
    });
    await settle(key, [store.id]);
    expect((await c.stores.files.retrieve(file.id, { store_identifier: store.id })).status).toBe('completed');
    const found = await c.stores.search({ query: 'quince preserve', store_identifiers: [store.id] });
    expect(found.data.map((d) => d.file_id)).toContain(file.id);
    const listed = await sendJson<{ data: Array<{ id: string }> }>(t.baseURL, key, 'GET', '/v1/stores?limit=100');
    expect(listed.data.map((s) => s.id)).toContain(store.id);
    // the fixture's other resources still answer
    expect((await c.stores.retrieve(fx.stable.stores[0].id)).id).toBe(fx.stable.stores[0].id);
    await c.stores.delete(store.id);
    await expect(c.stores.retrieve(store.id)).rejects.toMatchObject({ status: 404 });
  });
});

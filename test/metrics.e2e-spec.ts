import { toFile } from '@mixedbread/sdk';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(60_000);

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of a Prometheus text exposition (comments skipped). */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** `GET /metrics` on the whole API: the series an operator watches, after real traffic. */
describe('metrics endpoint', () => {
  let t: TestLarder;
  let off: TestLarder | undefined;
  let busy: TestLarder | undefined;

  beforeAll(async () => {
    t = await startTestLarder();
  });
  afterAll(async () => {
    await t?.close();
    await off?.close();
    await busy?.close();
  });

  const scrape = async (larder: TestLarder) => {
    const res = await fetch(`${larder.baseURL}/metrics`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  it('exposes request latency per route template, search and ingestion work, projection lag and process memory, without an API key', async () => {
    const c = t.client((await t.newOrganization('metrics')).apiKey);
    const store = (await c.stores.create({ name: 'pantry' })).id;
    await c.stores.files.upload({
      storeIdentifier: store,
      file: await toFile(Buffer.from('Quince paste sets firm when cooked long and slow.'), 'quince.txt', {
        type: 'text/plain',
      }),
    });
    for (;;) {
      const st = await c.stores.retrieve(store);
      if (st.file_counts!.completed === st.file_counts!.total) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await c.stores.search({ query: 'quince paste', store_identifiers: [store], top_k: 3 });

    const res = await scrape(t);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    const samples = parseExposition(res.text);
    const one = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    // the search route's histogram, under its template, not its concrete path
    const searches = one('larder_http_request_duration_seconds_count', {
      method: 'POST',
      route: '/v1/stores/search',
      status_class: '2xx',
    });
    expect(searches).toHaveLength(1);
    expect(searches[0].value).toBeGreaterThanOrEqual(1);
    const retrieved = one('larder_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/v1/stores/:store_identifier',
    });
    expect(retrieved[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.labels.route === `/v1/stores/${store}`)).toBe(false);
    // this scrape is the one request in flight (it is counted before the route answers)
    expect(one('larder_http_requests_in_flight')[0].value).toBeGreaterThanOrEqual(1);
    expect(one('larder_search_in_flight')[0].value).toBe(0);
    // search admission: nothing waits or runs now, nothing was refused
    expect(one('larder_search_queue_depth')[0].value).toBe(0);
    expect(one('larder_search_running')[0].value).toBe(0);
    expect(one('larder_search_refused_total', { reason: 'queue_full' })[0].value).toBe(0);
    expect(one('larder_search_refused_total', { reason: 'queue_wait' })[0].value).toBe(0);
    expect(one('larder_query_embedding_cache_entries')[0].value).toBeGreaterThanOrEqual(1);
    // each query embedding's vector (512 float32s) and query, within the cache's bound in bytes
    const queryBytes = one('larder_query_embedding_cache_bytes')[0].value;
    expect(queryBytes).toBeGreaterThanOrEqual(512 * 4);
    expect(queryBytes).toBeLessThanOrEqual(one('larder_query_embedding_cache_capacity_bytes')[0].value);

    // the embedded chunk index's lexical caches (the search read the store's lists through them)
    expect(one('larder_chunk_index_cache_bytes', { cache: 'lexical_blocks' })[0].value).toBeGreaterThan(0);
    expect(one('larder_chunk_index_cache_capacity_bytes', { cache: 'lexical_blocks' })[0].value).toBeGreaterThan(0);
    expect(one('larder_chunk_index_cache_entries', { cache: 'lexical_directories' })[0].value).toBeGreaterThanOrEqual(
      1,
    );
    // the exact scans' vectors (the store is too small for an IVF), within their bound (LARDER_SEARCH_EXACT_SCAN_CACHE_MB, 128)
    expect(one('larder_chunk_index_cache_entries', { cache: 'exact_scans' })[0].value).toBe(1);
    expect(one('larder_chunk_index_cache_bytes', { cache: 'exact_scans' })[0].value).toBeGreaterThan(0);
    expect(one('larder_chunk_index_cache_capacity_bytes', { cache: 'exact_scans' })[0].value).toBe(128 * 2 ** 20);
    // SQLite's page caches of the index's two connections: their bound (LARDER_INDEX_PAGE_CACHE_MB, 64 each)
    expect(one('larder_chunk_index_cache_capacity_bytes', { cache: 'sqlite_pages' })[0].value).toBe(2 * 64 * 2 ** 20);

    // the domain events the in-process bus keeps, as JSON, within their bound (LARDER_BUS_RETAIN_MB, 4)
    expect(one('larder_message_bus_retained_messages')[0].value).toBeGreaterThanOrEqual(1);
    const busBytes = one('larder_message_bus_retained_bytes')[0].value;
    expect(busBytes).toBeGreaterThan(0);
    expect(busBytes).toBeLessThanOrEqual(one('larder_message_bus_retained_capacity_bytes')[0].value);
    expect(one('larder_message_bus_retained_capacity_bytes')[0].value).toBe(4 * 2 ** 20);

    // ingestion: the file was ingested here, the queue is empty
    expect(one('larder_ingestion_files_total')[0].value).toBeGreaterThanOrEqual(1);
    expect(one('larder_ingestion_chunks_total')[0].value).toBeGreaterThanOrEqual(1);
    expect(one('larder_ingestion_queue_files', { status: 'pending' })[0].value).toBe(0);
    expect(one('larder_ingestion_queue_files', { status: 'in_progress' })[0].value).toBe(0);
    expect(one('larder_ingestion_running_files')[0].value).toBe(0);
    // the file's chunk went to the model in a timed batch; nothing waits for it now
    const batches = one('larder_ingestion_embed_batch_seconds_count')[0].value;
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(one('larder_ingestion_embed_batch_seconds_bucket', { le: '+Inf' })[0].value).toBe(batches);
    expect(one('larder_ingestion_embed_batch_seconds_sum')[0].value).toBeGreaterThan(0);
    expect(one('larder_ingestion_embedded_texts_total')[0].value).toBeGreaterThanOrEqual(batches);
    expect(one('larder_ingestion_embed_queue_texts')[0].value).toBe(0);

    // projection lag: one gauge per projection and reactor, as /health/ready lists them
    const ready = (await (await fetch(`${t.baseURL}/health/ready`)).json()) as {
      checks: { projections: { items: Array<{ name: string }> } };
    };
    const lags = one('larder_projection_lag_events');
    expect(lags.map((s) => s.labels.projection).sort()).toEqual(
      ready.checks.projections.items.map((p) => p.name).sort(),
    );
    expect(lags.every((s) => s.value >= 0 && ['projection', 'reactor'].includes(s.labels.kind))).toBe(true);
    expect(lags.find((s) => s.labels.projection === 'chunk-index')).toBeDefined();

    // the process (prom-client's default metrics)
    expect(one('process_resident_memory_bytes')[0].value).toBeGreaterThan(0);
    expect(one('nodejs_heap_size_used_bytes')[0].value).toBeGreaterThan(0);
    expect(one('nodejs_eventloop_lag_seconds')).toHaveLength(1);
    // the process's memory by part: the parts within the resident whole (this server's database is PostgreSQL, no embedded one)
    const part = (p: string) => one('larder_memory_bytes', { part: p })[0].value;
    expect(part('resident')).toBeGreaterThan(0);
    expect(part('js_heap')).toBeGreaterThan(0);
    expect(part('embedded_database')).toBe(0);
    expect(part('js_heap') + part('external') + part('native')).toBeLessThanOrEqual(part('resident'));
  });

  it("reports the embedded database's WebAssembly memory, its shared buffers within it", async () => {
    const embedded = await startTestLarder({ embedded: true, env: { LARDER_PG_SHARED_BUFFERS_MB: '16' } });
    try {
      const samples = parseExposition((await scrape(embedded)).text);
      const wasm = samples.find((s) => s.name === 'larder_memory_bytes' && s.labels.part === 'embedded_database');
      // PGlite's WebAssembly memory starts at 128 MiB and holds the shared buffers
      expect(wasm?.value).toBeGreaterThanOrEqual(128 * 2 ** 20);
    } finally {
      await embedded.close();
    }
  }, 180_000); // an embedded database's first start (initdb) takes long on a loaded machine

  it('counts an unknown path under one label, not its own', async () => {
    await fetch(`${t.baseURL}/no/such/${Date.now()}`);
    const samples = parseExposition((await scrape(t)).text);
    const unmatched = samples.filter(
      (s) =>
        s.name === 'larder_http_request_duration_seconds_count' &&
        s.labels.route === 'unmatched' &&
        s.labels.status_class === '4xx',
    );
    expect(unmatched[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.labels.route?.startsWith('/no/such'))).toBe(false);
  });

  it('counts searches refused by a full search queue, each answered 503 with Retry-After in the error shape', async () => {
    busy = await startTestLarder({ env: { LARDER_SEARCH_CONCURRENCY: '1', LARDER_SEARCH_QUEUE: '0' } });
    const { apiKey } = await busy.newOrganization('busy');
    const c = busy.client(apiKey);
    const store = (await c.stores.create({ name: 'busy' })).id;
    const search = () =>
      fetch(`${busy!.baseURL}/v1/stores/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'damson gin', store_identifiers: [store], top_k: 5 }),
      });
    // one search runs at a time and none may wait: of 24 sent at once, those that came while one ran are refused
    const answers = await Promise.all(Array.from({ length: 24 }, search));
    const refused = answers.filter((r) => r.status === 503);
    expect(answers.every((r) => r.status === 200 || r.status === 503)).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.some((r) => r.status === 200)).toBe(true);
    expect(refused[0].headers.get('retry-after')).toBe('1');
    expect(await refused[0].json()).toEqual({
      error: { message: expect.stringContaining('retry shortly'), code: 503, type: 'service_unavailable' },
      message: expect.any(String),
    });
    for (const r of answers) if (r !== refused[0]) await r.arrayBuffer();
    const samples = parseExposition((await scrape(busy)).text);
    const full = samples.find((s) => s.name === 'larder_search_refused_total' && s.labels.reason === 'queue_full');
    expect(full?.value).toBe(refused.length);
    // every answered request is counted, the refused ones under 5xx
    const fivexx = samples.find(
      (s) =>
        s.name === 'larder_http_request_duration_seconds_count' &&
        s.labels.route === '/v1/stores/search' &&
        s.labels.status_class === '5xx',
    );
    expect(fivexx?.value).toBe(refused.length);
  });

  it('is not served with LARDER_METRICS=false', async () => {
    off = await startTestLarder({ env: { LARDER_METRICS: 'false' } });
    expect((await scrape(off)).status).toBe(404);
  });
});

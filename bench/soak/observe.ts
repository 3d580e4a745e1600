import { randomBytes } from 'crypto';
import Mixedbread from '@mixedbread/sdk';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the server holds at the end, read through the API. */
export interface Observed {
  storeFiles: Array<{ id: string; externalId: string | null; status: string }>;
  orgFiles: Array<{ id: string; filename: string }>;
  /** The queries of the organization's `search` and `qa` activity events. */
  activity: { search: string[]; qa: string[] };
  /** Requests billed (`usages` of `GET /v1/billing/summary`). */
  billed: { search: number; qa: number };
  /** Store files a `GET` answered, of those asked. */
  gettable: Set<string>;
  /** What did not settle in time (empty when everything did). */
  unsettled: string[];
}

/** A plain API call (the SDK has no call for activity or billing): the JSON of a 2xx answer. */
async function getJson<T>(base: string, key: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Page<T> {
  data: T[];
  pagination: { has_more: boolean; last_cursor?: string | null };
}

/** Every item of a cursor listing, 100 at a time. */
async function all<T>(page: (after: string | null) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  for (let after: string | null = null; ;) {
    const p = await page(after);
    out.push(...p.data);
    if (!p.pagination.has_more || !p.pagination.last_cursor || !p.data.length) return out;
    after = p.pagination.last_cursor;
  }
}

type ActivityEvent = { query?: string | null };
const activityPage = (base: string, key: string, kind: string) => (after: string | null) =>
  getJson<Page<ActivityEvent>>(
    base,
    key,
    `/v1/events?event_type=${kind}&limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
  );

/**
 * Waits until the server has caught up with the load: no store file is pending or in progress (its
 * ingestion ran, or failed for good), the activity of a search and a question asked now is listed
 * (the activity reactor, in log order, has passed everything before them), and billing counts at least
 * what the activity lists. Each wait gives up after `timeoutMs` and says so in `unsettled`.
 */
export async function settle(
  client: Mixedbread,
  base: string,
  key: string,
  storeId: string,
  timeoutMs: number,
): Promise<string[]> {
  const unsettled: string[] = [];
  const until = async (what: string, done: () => Promise<boolean>) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await done().catch(() => false))) {
      if (Date.now() > deadline) return void unsettled.push(what);
      await sleep(1000);
    }
  };
  await until('ingestion (store files still pending or in progress)', async () => {
    const r = await client.stores.files.list(storeId, { limit: 1, statuses: ['pending', 'in_progress'] });
    return r.data.length === 0;
  });
  const tag = randomBytes(6).toString('hex');
  const marks = { search: `soak settle search ${tag}`, qa: `soak settle qa ${tag}` };
  await client.stores.search({ query: marks.search, store_identifiers: [storeId] });
  await client.stores.questionAnswering({ query: marks.qa, store_identifiers: [storeId] });
  for (const kind of ['search', 'qa'] as const)
    await until(`${kind} activity`, async () =>
      (await activityPage(base, key, kind)(null)).data.some((e) => e.query === marks[kind]),
    );
  await until('billing', async () => {
    const [billed, search, qa] = await Promise.all([
      billing(base, key),
      all(activityPage(base, key, 'search')),
      all(activityPage(base, key, 'qa')),
    ]);
    return billed.search >= search.length && billed.qa >= qa.length;
  });
  return unsettled;
}

async function billing(base: string, key: string): Promise<{ search: number; qa: number }> {
  const s = await getJson<{ usages: Record<string, { current: string }> }>(base, key, '/v1/billing/summary');
  return { search: Number(s.usages.searches?.current ?? 0), qa: Number(s.usages.qa?.current ?? 0) };
}

/** Reads the end state: the store's files, the organization's files, activity, billing; and a `GET` of each store file in `expected`. */
export async function observe(
  client: Mixedbread,
  base: string,
  key: string,
  storeId: string,
  expected: string[],
  unsettled: string[],
): Promise<Observed> {
  const storeFiles = (
    await all(
      (after) =>
        client.stores.files.list(storeId, { limit: 100, after }) as unknown as Promise<
          Page<{ id: string; external_id?: string | null; status?: string }>
        >,
    )
  ).map((f) => ({ id: f.id, externalId: f.external_id ?? null, status: f.status ?? 'pending' }));
  const orgFiles: Observed['orgFiles'] = [];
  for await (const f of client.files.list({ limit: 100 })) orgFiles.push({ id: f.id, filename: f.filename });
  const queriesOf = async (kind: string) => (await all(activityPage(base, key, kind))).map((e) => e.query ?? '');
  const activity = { search: await queriesOf('search'), qa: await queriesOf('qa') };
  const gettable = new Set<string>();
  for (const id of expected) {
    const ok = await client.stores.files.retrieve(id, { store_identifier: storeId }).then(
      () => true,
      (err: { status?: number }) => {
        if (err.status === 404) return false;
        throw err;
      },
    );
    if (ok) gettable.add(id);
  }
  return { storeFiles, orgFiles, activity, billed: await billing(base, key), gettable, unsettled };
}

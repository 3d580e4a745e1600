import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { randomUUID } from 'crypto';
import { Pool } from 'pg';
import { START } from '@larder/kernel';
import { PostgresEventStore } from '@larder/event-store/postgres/postgres.event-store';
import { startEmbeddedPostgres } from '@larder/database';
import { createServerTestDatabase } from '../libs/database/src/testing/test-databases';

const N_SINGLE = Number(process.env.BENCH_SINGLE ?? 2000);
const N_MANY = Number(process.env.BENCH_MANY ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

interface Row {
  target: string;
  singleStream: number;
  manyStreams: number;
  readAll: number;
  subscribe: number;
}

const event = (i: number) => ({
  type: 'BenchHappened',
  data: { i, text: 'x'.repeat(200) },
  metadata: { orgId: 'bench' },
});

/** `appendStatements`: as the server configures the adapter (4 on a PostgreSQL server, 1 embedded). */
async function measure(target: string, url: string, appendStatements: number): Promise<Row> {
  const pool = new Pool({ connectionString: url, max: CONCURRENCY + 2 });
  const store = new PostgresEventStore(pool, { schema: 'bench_events', pollMs: 10, appendStatements });
  await store.setup();

  // single stream, sequential appends with exact expected revision
  const s = `bench-${randomUUID()}`;
  let t = performance.now();
  for (let i = 0; i < N_SINGLE; i++)
    await store.appendToStream(s, [event(i)], { expectedRevision: i === 0 ? 'no_stream' : i - 1 });
  const singleStream = N_SINGLE / ((performance.now() - t) / 1000);

  // many streams, CONCURRENCY appenders
  const streams = Array.from({ length: 200 }, () => `bench-${randomUUID()}`);
  const revisions = new Map<string, number>();
  let next = 0;
  t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= N_MANY) return;
        const st = streams[(i * CONCURRENCY + w) % streams.length];
        // concurrent writers to one stream may conflict: retry with the stream's current revision
        for (;;) {
          const rev = revisions.get(st);
          try {
            const r = await store.appendToStream(st, [event(i)], {
              expectedRevision: rev === undefined ? 'no_stream' : rev,
            });
            revisions.set(st, r.nextRevision);
            break;
          } catch {
            const last = await store.readStream(st, { direction: 'backwards', maxCount: 1 });
            revisions.set(st, last[0].revision);
          }
        }
      }
    }),
  );
  const manyStreams = N_MANY / ((performance.now() - t) / 1000);

  // catch-up read of the whole log
  const total = N_SINGLE + N_MANY;
  t = performance.now();
  let read = 0;
  let pos = START;
  for (;;) {
    const batch = await store.readAll({ after: pos, maxCount: 1000 });
    if (!batch.length) break;
    read += batch.length;
    pos = batch[batch.length - 1].position;
  }
  const readAll = read / ((performance.now() - t) / 1000);

  // subscription catch-up (500-event pages, as projections use)
  const controller = new AbortController();
  let seen = 0;
  t = performance.now();
  for await (const _ of store.subscribeToAll({ signal: controller.signal })) {
    void _;
    if (++seen >= total) controller.abort();
  }
  const subscribe = seen / ((performance.now() - t) / 1000);

  await store.close();
  await pool.end();
  return { target, singleStream, manyStreams, readAll, subscribe };
}

export async function eventStoreBench(): Promise<void> {
  const rows: Row[] = [];
  const server = await createServerTestDatabase('larder_bench');
  try {
    rows.push(await measure('server Postgres', server.url, 4));
  } finally {
    await server.drop();
  }
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-'));
  const embedded = await startEmbeddedPostgres({ dataDir: join(dir, 'pg') });
  try {
    rows.push(await measure('embedded Postgres (PGlite, disk)', embedded.url, 1));
  } finally {
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  process.stdout.write(
    `\nEvent store benchmark (${N_SINGLE} single-stream appends, ${N_MANY} appends over 200 streams by ${CONCURRENCY} writers, 1 event of ~250 B each)\n\n`,
  );
  process.stdout.write(
    '| target | append/s, 1 stream | append/s, 200 streams | readAll events/s | subscribe events/s |\n|---|---:|---:|---:|---:|\n',
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.target} | ${f(r.singleStream)} | ${f(r.manyStreams)} | ${f(r.readAll)} | ${f(r.subscribe)} |\n`,
    );
  process.stdout.write('\n');
}

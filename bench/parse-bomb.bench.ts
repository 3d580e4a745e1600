import { randomBytes } from 'crypto';
import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { basename, join } from 'path';
import { docxBomb } from './docx-bomb';
import { freePort, memoryOf, saveResult, waitForServer } from './support';

const MiB = 1024 * 1024;
const ROOT = join(__dirname, '..', '..');
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** Bombs uploaded at once (BENCH_PARSE_BOMBS), and how long after they failed the memory is read again (BENCH_PARSE_BOMB_SETTLE_S). */
const BOMBS = Number(process.env.BENCH_PARSE_BOMBS ?? 2);
const SETTLE_S = Number(process.env.BENCH_PARSE_BOMB_SETTLE_S ?? 60);
/** What the bomb's document.xml inflates to (BENCH_PARSE_BOMB_MB): below the server's budget, its parse thread's heap limit is what stops it. */
const INFLATED_MB = Number(process.env.BENCH_PARSE_BOMB_MB ?? 1200);
/** Another built checkout whose server is measured instead (BENCH_PARSE_BOMB_SERVER), for a before/after. */
const SERVER_ROOT = process.env.BENCH_PARSE_BOMB_SERVER || ROOT;

/**
 * What a DOCX bomb costs the server's memory: its document.xml inflates to 1.2 GB (bench/docx-bomb.ts,
 * 3 MB on the wire). A server on the embedded defaults ingests one real DOCX first (so the parsers have
 * been loaded once), rests, and its RSS is the baseline; `BENCH_PARSE_BOMBS` bombs are then uploaded to
 * a store at once and the RSS is sampled every 20 ms until all have failed (the peak), and read again
 * `BENCH_PARSE_BOMB_SETTLE_S` seconds later. A real file ingested after the bombs shows the server
 * still works. Saved to bench/results/parse-bomb[-<MB>][-<other checkout>].json.
 */
export async function parseBombBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-bomb-'));
  const key = `lrd_bench_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ['-r', join(SERVER_ROOT, 'tools/paths.js'), join(SERVER_ROOT, 'dist/apps/api/src/main.js')],
    {
      env: {
        ...process.env,
        PORT: String(port),
        LARDER_DATA_DIR: join(dir, 'data'),
        LARDER_ROOT_KEY: key,
        LARDER_LOG_LEVEL: 'warn',
        LARDER_INGESTION_POLL_MS: '100',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const auth = { authorization: `Bearer ${key}` };
  const rss = () => memoryOf(child.pid!).rss;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  type StoreFile = { id: string; status: string; last_error: { message: string } | null };
  try {
    await waitForServer(base, 120);
    const store = (await (
      await fetch(`${base}/v1/stores`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bombs' }),
      })
    ).json()) as {
      id: string;
    };
    const upload = async (name: string, body: Buffer, type: string): Promise<string> => {
      const form = new FormData();
      form.append('file', new Blob([body], { type }), name);
      const res = await fetch(`${base}/v1/stores/${store.id}/files/upload`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      if (res.status !== 201) throw new Error(`upload of ${name}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    /** The file once ingested or failed, or as it is after five minutes. */
    const settled = async (id: string): Promise<StoreFile & { at: number }> => {
      for (const t0 = performance.now(); ;) {
        const f = (await (
          await fetch(`${base}/v1/stores/${store.id}/files/${id}`, { headers: auth })
        ).json()) as StoreFile;
        if (
          f.status === 'completed' ||
          f.status === 'failed' ||
          f.status === 'cancelled' ||
          performance.now() - t0 > 300_000
        )
          return { ...f, at: performance.now() };
        await sleep(50);
      }
    };
    const handbook = readFileSync(join(ROOT, 'test/fixtures/ingestion/handbook.docx'));
    const warm = await settled(await upload('handbook.docx', handbook, DOCX));
    if (warm.status !== 'completed')
      throw new Error(`the warm-up DOCX did not ingest: ${JSON.stringify(warm.last_error)}`);
    // past the idle time of the parse thread that read it
    await sleep(10_000);

    const bomb = docxBomb(INFLATED_MB * MiB);
    const baseline = rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
    const t0 = performance.now();
    const ids = await Promise.all(Array.from({ length: BOMBS }, (_, i) => upload(`bomb-${i}.docx`, bomb, DOCX)));
    const results = await Promise.all(ids.map(settled));
    const failedMs = Math.max(...results.map((r) => r.at)) - t0;
    await sleep(1000);
    clearInterval(sampler);
    const after = await settled(await upload('handbook-after.docx', handbook, DOCX));
    process.stdout.write(`bombs failed after ${(failedMs / 1000).toFixed(1)} s; waiting ${SETTLE_S} s\n`);
    await sleep(SETTLE_S * 1000);
    const later = rss();
    const env = (k: string) => process.env[k] ?? null;

    const result = {
      bench: 'parse-bomb',
      date: new Date().toISOString(),
      server: SERVER_ROOT,
      limits: {
        LARDER_PARSE_MAX_INFLATED_MB: env('LARDER_PARSE_MAX_INFLATED_MB'),
        LARDER_PARSE_MAX_HEAP_MB: env('LARDER_PARSE_MAX_HEAP_MB'),
      },
      bomb: { fileBytes: bomb.length, inflatedMiB: INFLATED_MB, count: BOMBS },
      statuses: results.map((r) => r.status),
      lastError: results[0].last_error?.message ?? null,
      fileAfterwards: after.status,
      failedAfterMs: Math.round(failedMs),
      rssMiB: {
        baseline: Math.round(baseline / MiB),
        peak: Math.round(peak / MiB),
        afterSettle: Math.round(later / MiB),
        settleSeconds: SETTLE_S,
      },
      riseMiB: Math.round((peak - baseline) / MiB),
      leftMiB: Math.round((later - baseline) / MiB),
      pass: { riseAtMost512MiB: peak - baseline <= 512 * MiB, backWithin256MiB: later - baseline <= 256 * MiB },
    };
    process.stdout.write(
      `\n## Parse bomb: ${BOMBS} × DOCX of ${(bomb.length / MiB).toFixed(1)} MiB inflating to ${INFLATED_MB} MiB\n\n`,
    );
    process.stdout.write(
      `| RSS baseline | peak (rise) | ${SETTLE_S} s after (left) | statuses | file afterwards |\n|---|---|---|---|---|\n`,
    );
    process.stdout.write(
      `| ${result.rssMiB.baseline} MiB | ${result.rssMiB.peak} MiB (+${result.riseMiB}) | ${result.rssMiB.afterSettle} MiB (${result.leftMiB >= 0 ? '+' : ''}${result.leftMiB}) | ${result.statuses.join(', ')} | ${after.status} |\n`,
    );
    process.stdout.write(`last_error: ${result.lastError}\n`);
    const name = `parse-bomb${INFLATED_MB === 1200 ? '' : `-${INFLATED_MB}`}${SERVER_ROOT === ROOT ? '' : `-${basename(SERVER_ROOT)}`}`;
    saveResult(name, result);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

import { randomBytes } from 'crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import Mixedbread from '@mixedbread/sdk';
import { freePort } from './support';
import { Ledger } from './soak/ledger';
import { SoakWorker } from './soak/load';
import { observe, settle } from './soak/observe';
import { SoakServer } from './soak/server';
import { Finding, verify } from './soak/verify';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const KILL_S = Number(process.env.BENCH_SOAK_KILL_S ?? 30);
const WORKERS = Number(process.env.BENCH_SOAK_WORKERS ?? 4);
const SETTLE_S = Number(process.env.BENCH_SOAK_SETTLE_S ?? 300);
/** Uploads above this size are refused (the server's LARDER_MAX_FILE_BYTES): the soak sends some, for refusals that must leave no trace. */
const MAX_FILE_BYTES = 64 * 1024;
const RESULTS = join(__dirname, '..', '..', 'bench', 'results');

/**
 * A crash soak: `BENCH_SOAK_MINUTES` of mixed load from `BENCH_SOAK_WORKERS` clients of the official
 * SDK (uploads attached with and without external ids, private ones and ids shared between clients,
 * with overwrite true and false, and bursts of concurrent overwrite:false attaches to one new id;
 * attaches of uploaded files and again of attached ones; deletes; searches; question answering)
 * against the embedded default server, which is killed with `kill -9` each time it has been up
 * `BENCH_SOAK_KILL_S` seconds and started again on its data. Every request's outcome is kept
 * client side. At the end, after a clean restart and once ingestion, activity and billing have caught
 * up, every write answered 2xx must show exactly once, no write answered 4xx/5xx may have left a
 * trace, and every search and question answered must be listed in `/v1/events` and billed. Requests
 * the kill cut off (no answer) are counted and excluded from both checks. The counts and findings are
 * saved to bench/results/soak-<time>.json; the bench fails when anything was lost or left behind.
 */
export async function soakBench(): Promise<void> {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(`\n## Crash soak: ${MINUTES} min, ${WORKERS} clients, kill -9 every ${KILL_S} s\n`);
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-soak-'));
  const key = `lrd_soak_${randomBytes(24).toString('base64url')}`;
  const server = new SoakServer(
    {
      LARDER_DATA_DIR: join(dir, 'data'),
      LARDER_ROOT_KEY: key,
      LARDER_LOG_LEVEL: 'log',
      LARDER_MAX_FILE_BYTES: String(MAX_FILE_BYTES),
    },
    await freePort(),
    join(dir, 'server.log'),
  );
  const client = new Mixedbread({ apiKey: key, baseURL: server.base, maxRetries: 0, timeout: 30_000 });
  let failed: boolean;
  try {
    await server.start();
    const store = await client.stores.create({ name: `soak-${randomBytes(4).toString('hex')}` });
    // the clock of the load (ms since it began): every request's times, and the kills'
    const ledger = new Ledger();
    const kills: number[] = [];
    const end = ledger.now() + MINUTES * 60_000;
    const done = () => ledger.now() >= end;
    const workers = Array.from({ length: WORKERS }, (_, w) =>
      new SoakWorker(w, { client, storeId: store.id, ledger, maxFileBytes: MAX_FILE_BYTES, done }).run(),
    );

    // the killer: kill -9 once the server has been up BENCH_SOAK_KILL_S seconds, start it again at once, until the load ends
    const killer = (async () => {
      for (let up = 0; ; up = ledger.now()) {
        await new Promise((r) => setTimeout(r, Math.min(up + KILL_S * 1000, end) - ledger.now()));
        if (done()) return;
        kills.push(ledger.now());
        await server.kill9();
        await server.start();
        out(
          `kill ${kills.length} at ${(kills[kills.length - 1] / 1000).toFixed(0)} s: back in ${(server.starts[server.starts.length - 1] / 1000).toFixed(1)} s, ${ledger.ops.length} requests so far`,
        );
      }
    })();
    await Promise.all([killer, ...workers]);

    // a clean restart, then the server catches up and the end state is read
    await server.stop();
    await server.start();
    const s0 = performance.now();
    const unsettled = await settle(client, server.base, key, store.id, SETTLE_S * 1000);
    const settleS = (performance.now() - s0) / 1000;
    const expected = ledger.files.filter((f) => f.store === 'yes' && !f.shared && f.fileId).map((f) => f.fileId!);
    const seen = await observe(client, server.base, key, store.id, expected, unsettled);
    const { counts, findings } = verify(ledger, seen, kills);
    failed =
      counts.lost +
        counts.duplicated +
        counts.refusedWithTrace +
        counts.conflictsAccepted +
        counts.unrecorded +
        counts.unbilled >
      0;

    out(
      `\nrequests: ${ledger.ops.length} (${summarize(ledger.ops.map((op) => `${op.label}: ${op.outcome}${op.status ? ` ${op.status}` : ''}`))})`,
    );
    out(
      `settled in ${settleS.toFixed(0)} s${unsettled.length ? `; did NOT settle: ${unsettled.join(', ')}` : ''}; store files at the end: ${seen.storeFiles.length} (${summarize(seen.storeFiles.map((f) => f.status))})`,
    );
    out(`starts took ${server.starts.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`);
    out(
      `\n| writes acked | lost | duplicated | refused with trace | overwrite:false accepted over a held id | searches answered | QA answered | unrecorded | unbilled | kills | unknown outcomes | not sent (server down) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n| ${[
        counts.writesAcked,
        counts.lost,
        counts.duplicated,
        counts.refusedWithTrace,
        counts.conflictsAccepted,
        counts.searchesAnswered,
        counts.qaAnswered,
        counts.unrecorded,
        counts.unbilled,
        counts.kills,
        counts.unknownOutcomes,
        counts.notSent,
      ].join(' | ')} |\n`,
    );
    printFindings(out, findings);

    mkdirSync(RESULTS, { recursive: true });
    const file = join(RESULTS, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          bench: 'soak',
          at: new Date().toISOString(),
          config: {
            minutes: MINUTES,
            killEveryS: KILL_S,
            workers: WORKERS,
            settleS: SETTLE_S,
            maxFileBytes: MAX_FILE_BYTES,
          },
          counts,
          requests: summarizeObject(
            ledger.ops.map((op) => `${op.label}: ${op.outcome}${op.status ? ` ${op.status}` : ''}`),
          ),
          restartsS: server.starts.map((ms) => +(ms / 1000).toFixed(2)),
          settledS: +settleS.toFixed(1),
          unsettled,
          findings,
        },
        null,
        2,
      )}\n`,
    );
    out(`saved ${file}`);
  } catch (err) {
    out(`server log: ${server.logPath} (kept)`);
    throw err;
  } finally {
    await server.stop();
    server.close();
  }
  if (failed)
    throw new Error(`the soak found writes lost or left behind, or answers unrecorded (server log: ${server.logPath})`);
  rmSync(dir, { recursive: true, force: true });
}

function summarizeObject(xs: string[]): Record<string, number> {
  const m: Record<string, number> = {};
  for (const x of xs) m[x] = (m[x] ?? 0) + 1;
  return Object.fromEntries(Object.entries(m).sort((a, b) => b[1] - a[1]));
}

function summarize(xs: string[]): string {
  return Object.entries(summarizeObject(xs))
    .map(([k, n]) => `${k} ×${n}`)
    .join(', ');
}

/** The findings by category and cause, each with how many came near a kill; up to 5 examples of each. */
function printFindings(out: (s: string) => void, findings: Finding[]): void {
  if (!findings.length)
    return out(
      'no findings: nothing acknowledged was lost or duplicated, nothing refused left a trace, every answer was recorded and billed',
    );
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const kind = `${f.category}: ${f.cause.replace(/ \(worker \d+, #\d+\)/g, '')}`;
    groups.set(kind, [...(groups.get(kind) ?? []), f]);
  }
  for (const [kind, fs] of groups) {
    out(`- ${fs.length} × ${kind} (${fs.filter((f) => f.nearKill).length} near a kill)`);
    for (const f of fs.slice(0, 5)) out(`    ${f.what}`);
    for (const h of fs[0].history ?? []) out(`      ${h}`);
  }
}

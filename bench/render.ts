import { existsSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { BenchResult, markdownTable, RESULTS_DIR } from './support';

/**
 * Renders the tables of docs/benchmarks.md from the saved results: each block between
 * `<!-- bench:<name> -->` (or `<!-- bench:<name>#<k> -->`, the bench's k-th printed table, from 0) and
 * `<!-- /bench -->` becomes that table of `bench/results/<name>.json` and a line saying when and where it
 * was measured; everything outside the markers (the prose) stays as written. A block whose bench has no
 * saved result, or no such table, is left as it is and listed in `kept`.
 */
export function renderTables(
  doc: string,
  resultOf: (bench: string) => BenchResult | null,
): { text: string; rendered: string[]; kept: string[] } {
  const rendered: string[] = [];
  const kept: string[] = [];
  const text = doc.replace(
    /(<!-- bench:([\w-]+)(?:#(\d+))? -->\n)([\s\S]*?)(<!-- \/bench -->)/g,
    (block: string, open: string, bench: string, k: string | undefined, _body: string, close: string) => {
      const label = k ? `${bench}#${k}` : bench;
      const result = resultOf(bench);
      const table = result?.tables[Number(k ?? 0)];
      if (!result || !table) {
        kept.push(`${label}: ${result ? `no table ${k ?? 0} in its result` : 'no saved result'}`);
        return block;
      }
      rendered.push(label);
      return `${open}${markdownTable(table)}\n\n${measuredLine(result)}\n${close}`;
    },
  );
  return { text, rendered, kept };
}

/** When and where a result was measured, and the settings it ran with, under its table. */
export function measuredLine(r: BenchResult): string {
  const load = r.machine.loadAverage.map((x) => x.toFixed(1)).join(' / ');
  const settings = Object.entries(r.settings).map(([k, v]) => `${k}=${v}`);
  const set = settings.length ? `; ${settings.join(', ')}` : '';
  return `<sub>${r.date.slice(0, 16).replace('T', ' ')} UTC, ${r.machine.cores} cores, load average ${load} (1 / 5 / 15 min), Node ${r.machine.node}${set}.</sub>`;
}

/** `npm run bench -- render`: rewrites docs/benchmarks.md's tables from bench/results/ and says which it kept. */
export async function renderBench(): Promise<void> {
  const docPath = join(RESULTS_DIR, '..', '..', 'docs', 'benchmarks.md');
  const { text, rendered, kept } = renderTables(readFileSync(docPath, 'utf8'), (bench) => {
    const path = join(RESULTS_DIR, `${bench}.json`);
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as BenchResult) : null;
  });
  writeFileSync(docPath, text);
  process.stdout.write(`rendered from bench/results/: ${rendered.join(', ') || 'nothing'}\n`);
  for (const k of kept) process.stdout.write(`kept unchanged: ${k}\n`);
}

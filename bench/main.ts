import 'reflect-metadata';
import { answeringBench } from './answering.bench';
import { eventStoreBench } from './eventstore.bench';
import { filesBench } from './files.bench';
import { ingestionBench } from './ingestion.bench';
import { searchQualityBench } from './quality';
import { rerankingQualityBench } from './reranking-quality.bench';
import { searchSpeedBench } from './search-speed.bench';
import { searchSpeedRealBench } from './search-speed-real.bench';
import { restartBench } from './restart.bench';
import { loadBench } from './load.bench';
import { ocrBench } from './ocr.bench';
import { queryPathBench } from './query-path.bench';
import { peersBench } from './peers.bench';
import { lexicalColdBench } from './lexical-cold.bench';
import { lexicalAbBench } from './lexical-ab.bench';
import { parseBombBench } from './parse-bomb.bench';
import { soakBench } from './soak.bench';
import { renderBench } from './render';
import { printedTables, saveResult, savedResultNames } from './support';

/**
 * Runs a bench, printing as it goes, and saves the tables it printed (with the date, the machine and the
 * settings) to bench/results/<name>.json, beside any figures the bench saved there itself; where the bench saved
 * its figures under other names (a named variant such as `load-<BENCH_LOAD_NAME>`), the tables go there instead.
 * A run that printed no table and saved nothing itself (a fill alone) leaves the results as they are.
 */
function saved(name: string, bench: () => Promise<void>): () => Promise<void> {
  return async () => {
    const before = new Set(savedResultNames());
    const printed: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return write(chunk, ...rest);
    };
    try {
      await bench();
    } finally {
      process.stdout.write = write;
    }
    const tables = printedTables(printed.join(''));
    const own = savedResultNames().filter((n) => !before.has(n));
    // a run that printed no table (BENCH_SEARCH_FILL_ONLY, say) leaves the saved results as they are
    if (!own.length && !tables.length) return void process.stdout.write('\nno table printed: nothing saved\n');
    // BENCH_RESULT_NAME: a run saved beside the default one (`<bench>-<name>.json`), where the bench saves none itself
    const as = process.env.BENCH_RESULT_NAME ? `${name}-${process.env.BENCH_RESULT_NAME}` : name;
    for (const target of own.length ? own : [as]) process.stdout.write(`\nsaved ${saveResult(target, { tables })}\n`);
  };
}

const BENCHES: Record<string, () => Promise<void>> = {
  eventstore: eventStoreBench,
  files: filesBench,
  ingestion: ingestionBench,
  'search-quality': searchQualityBench,
  'search-speed': searchSpeedBench,
  'search-speed-real': searchSpeedRealBench,
  restart: restartBench,
  load: loadBench,
  answering: answeringBench,
  reranking: rerankingQualityBench,
  ocr: ocrBench,
  'query-path': queryPathBench,
  peers: peersBench,
  'lexical-cold': lexicalColdBench,
  'lexical-ab': lexicalAbBench,
  'parse-bomb': parseBombBench,
  soak: soakBench,
};

const SUITES: Record<string, () => Promise<void>> = {
  ...Object.fromEntries(Object.entries(BENCHES).map(([name, bench]) => [name, saved(name, bench)])),
  search: async () => (await SUITES['search-quality'](), await SUITES['search-speed']()),
  render: renderBench,
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  if (!names.length || names.some((n) => !SUITES[n])) {
    process.stdout.write(`usage: npm run bench -- <${Object.keys(SUITES).join('|')}> ...\n`);
    process.exit(names.length ? 2 : 0);
  }
  for (const n of names) await SUITES[n]();
}

main().then(
  () => process.exit(0),
  (err) => {
    // eslint-disable-next-line no-console
    console.error(err);
    process.exit(1);
  },
);

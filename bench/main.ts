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
import { parseBombBench } from './parse-bomb.bench';
import { soakBench } from './soak.bench';

const SUITES: Record<string, () => Promise<void>> = {
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
  'parse-bomb': parseBombBench,
  soak: soakBench,
  search: async () => (await searchQualityBench(), await searchSpeedBench()),
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

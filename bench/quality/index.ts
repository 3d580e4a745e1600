import { existsSync, mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { DEFAULT_FUSION as DEFAULT_SEARCH_FUSION } from '../../apps/api/src/config/search';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { beir, DATA } from './beir.set';
import { codeSet } from './code.set';
import { docsSet } from './docs.set';
import { evaluate } from './evaluate';
import { gcideSet } from './gcide.set';
import { manpagesSet } from './manpages.set';
import { pairedCell, QualitySet, Score, scoreRankings, table } from './metrics';
import { peerRankings } from './peers';
import { pythonSet } from './python.set';
import { DEFAULT_VARIANT, LEXICAL_VARIANTS, PREVIOUS_VARIANT } from './variants';

/** The collections, in the order run: the tuning sets, then the held-out one (reported, never chosen on). */
const SETS: Array<{
  name: string;
  label: string;
  build: () => Promise<(QualitySet & { about: string }) | null> | (QualitySet & { about: string }) | null;
}> = [
  { name: 'cisi', label: 'CISI (tuning)', build: () => beirSet('cisi', 'CISI library-science abstracts') },
  { name: 'gcide', label: 'GCIDE → WordNet (tuning)', build: gcideSet },
  {
    name: 'code',
    label: 'code: JSDoc summary → function (tuning)',
    build: () => {
      const s = codeSet();
      return { ...s, about: `${s.queries.length} documented declarations from ${s.files} TypeScript source files` };
    },
  },
  {
    name: 'docs',
    label: 'docs: first sentence → README/docs section (tuning)',
    build: () => {
      const s = docsSet();
      return { ...s, about: `${s.queries.length} sections of ${s.pages} Markdown pages, ${s.packages} packages` };
    },
  },
  {
    name: 'python',
    label: 'python: docstring summary → function (tuning)',
    build: () => {
      const s = pythonSet();
      return { ...s, about: `${s.queries.length} documented functions from ${s.files} Python standard library files` };
    },
  },
  {
    name: 'manpages',
    label: 'manpages: NAME summary → man page (tuning)',
    build: async () => {
      const s = await manpagesSet();
      if (!s) return null;
      const sections = [...s.bySection].map(([k, n]) => `${n} of section ${k}`).join(', ');
      return { ...s, about: `${s.queries.length} reference pages of /usr/share/man (${sections})` };
    },
  },
  {
    name: 'cranfield',
    label: 'Cranfield (HELD OUT: reported, never tuned on)',
    build: () => beirSet('cranfield', 'Cranfield aeronautics abstracts'),
  },
];
/** BENCH_QUALITY_SETS: the collections to run, in that order. */
const CHOSEN = (process.env.BENCH_QUALITY_SETS ?? SETS.map((s) => s.name).join(',')).split(',').map((s) => s.trim());

function beirSet(name: string, what: string): (QualitySet & { about: string }) | null {
  const dir = join(DATA, name);
  if (!existsSync(join(dir, 'corpus.jsonl'))) {
    process.stdout.write(`\n(${dir} not found: set BENCH_QUALITY_DATA to the folder holding cisi/ and cranfield/)\n`);
    return null;
  }
  const s = beir(dir);
  return { ...s, about: `${s.docs.length} ${what}, ${s.queries.length} judged queries` };
}

const FUSION = `${DEFAULT_SEARCH_FUSION.method['use-lite']} ${DEFAULT_SEARCH_FUSION.lexicalWeight['use-lite']}`;
const HYBRID = `hybrid ${FUSION}: ${DEFAULT_VARIANT}`;
const LEXICAL = `lexical: ${DEFAULT_VARIANT}`;
const BM25_EVERY_WORD = `lexical: ${LEXICAL_VARIANTS[0][0]}`;
const f = (s: Score | undefined) => (s ? `${s.ndcg.toFixed(3)} / ${s.recall.toFixed(3)} / ${s.mrr.toFixed(3)}` : '–');

/**
 * Search quality on every chosen collection (BENCH_QUALITY_SETS): Larder's variants through the
 * API's indexing path (./evaluate.ts) beside the peers run on the same documents and queries
 * (./peers.ts); a table per collection, the default against each peer by a paired randomization test,
 * and a summary saved to bench/results/search-quality.json.
 */
export async function searchQualityBench(): Promise<void> {
  const embedder = new UseLiteEmbedder();
  const summary: Array<{ label: string; queries: number; results: Map<string, Score>; peers: string[] }> = [];
  try {
    for (const set of CHOSEN.map((n) => SETS.find((s) => s.name === n)).filter((s) => s !== undefined)) {
      const built = await set.build();
      if (!built) continue;
      process.stdout.write(`\n## Search quality: ${set.label}\n${built.about}\n`);
      const results = await evaluate(set.label, built.docs, built.queries, embedder);
      const peers = peerRankings(built.docs, built.queries).map((p) => {
        const s = scoreRankings(built.queries, p.lists);
        results.set(`peer: ${p.name}`, s);
        return p.name;
      });
      const hybrid = results.get(HYBRID)!.perQuery!;
      const rows: Array<[string, Score, string]> = [
        [`Larder default (hybrid ${FUSION})`, results.get(HYBRID)!, ''],
        ['Larder lexical default', results.get(LEXICAL)!, pairedCell(hybrid, results.get(LEXICAL)!.perQuery!)],
        [
          `Larder dense (${embedder.model})`,
          results.get('dense')!,
          pairedCell(hybrid, results.get('dense')!.perQuery!),
        ],
        ...peers.map((p): [string, Score, string] => [
          p,
          results.get(`peer: ${p}`)!,
          pairedCell(hybrid, results.get(`peer: ${p}`)!.perQuery!),
        ]),
      ];
      table(`${set.label}: Larder and peers`, rows, 'default − this (paired, p)');
      summary.push({ label: set.label, queries: built.queries.length, results, peers });
    }
  } finally {
    await embedder.close();
  }
  process.stdout.write(
    `## Summary (nDCG@10 / recall@100 / MRR)\n\n| collection | queries | Larder default | best peer | default vs best peer | plain BM25 | default − plain BM25 (p) |\n|---|---:|---|---|---|---|---|\n`,
  );
  for (const { label, queries, results, peers } of summary) {
    const best = peers.reduce((a, b) => (results.get(`peer: ${b}`)!.ndcg > results.get(`peer: ${a}`)!.ndcg ? b : a));
    const def = results.get(HYBRID)!;
    const top = results.get(`peer: ${best}`)!;
    const plain = results.get(`peer: ${peers[0]}`)!;
    process.stdout.write(
      `| ${label} | ${queries} | ${f(def)} | ${best}: ${f(top)} | ${((def.ndcg / top.ndcg - 1) * 100).toFixed(1)} % | ${f(plain)} | ${pairedCell(def.perQuery!, plain.perQuery!)} |\n`,
    );
  }
  process.stdout.write(
    `\n## Before / after (nDCG@10 / recall@100 / MRR)\n\n| collection | BM25, every query word | lexical before (${PREVIOUS_VARIANT}) | lexical now | dense | hybrid before (relative 0.8, ${PREVIOUS_VARIANT}) | hybrid now |\n|---|---|---|---|---|---|---|\n`,
  );
  for (const { label, results: m } of summary)
    process.stdout.write(
      `| ${label} | ${f(m.get(BM25_EVERY_WORD))} | ${f(m.get(`lexical: ${PREVIOUS_VARIANT}`))} | ${f(m.get(LEXICAL))} | ${f(m.get('dense'))} | ${f(m.get(`hybrid relative 0.8: ${PREVIOUS_VARIANT}`))} | ${f(m.get(HYBRID))} |\n`,
    );
  process.stdout.write('\n');
  const out = join(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'search-quality.json'),
    JSON.stringify(
      summary.map(({ label, queries, results }) => ({
        collection: label,
        queries,
        scores: Object.fromEntries(
          [...results].map(([k, s]) => [k, { ndcg10: s.ndcg, recall100: s.recall, mrr: s.mrr }]),
        ),
      })),
      null,
      2,
    ) + '\n',
  );
}

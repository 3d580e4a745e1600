import { createHash } from 'crypto';
import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { gunzipSync } from 'zlib';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { ScoredChunk } from '@larder/chunk-index';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { fuse, FusionMethod } from '@larder/search/ranking';

const GCIDE = '/usr/share/dictd/gcide.dict.dz';
const GCIDE_INDEX = '/usr/share/dictd/gcide.index';
const WORDNET = '/usr/share/wordnet';
const QUERIES = Number(process.env.BENCH_QUALITY_QUERIES ?? 300);
const DOCS = Number(process.env.BENCH_QUALITY_DOCS ?? 6000);

const sha = (s: string) => createHash('sha1').update(s).digest('hex');
const uuidOf = (s: string) => {
  const h = sha(s);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Installs Debian's dict-gcide and wordnet-base when they are missing (the collection's sources). */
function ensureSources(): void {
  if (existsSync(GCIDE) && existsSync(join(WORDNET, 'data.noun'))) return;
  process.stdout.write('installing dict-gcide and wordnet-base from Debian…\n');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]) => execFileSync(sudo.length ? 'sudo' : args[0], sudo.length ? args : args.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'dict-gcide', 'wordnet-base']);
}

interface Synset {
  id: string;
  lemmas: string[];
  gloss: string;
}

function wordnet(): Synset[] {
  const out: Synset[] = [];
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of readFileSync(join(WORDNET, `data.${pos}`), 'latin1').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const bar = line.indexOf(' | ');
      if (bar < 0) continue;
      const f = line.slice(0, bar).split(' ');
      const n = parseInt(f[3], 16);
      const lemmas = Array.from({ length: n }, (_, i) => f[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
      out.push({ id: `${pos}:${f[0]}`, lemmas, gloss: line.slice(bar + 3).trim() });
    }
  }
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const b64 = (s: string) => [...s].reduce((n, c) => n * 64 + B64.indexOf(c), 0);

/** The first sense of each single-word GCIDE headword, as plain text. */
function gcide(words: Set<string>): Map<string, string> {
  const dict = gunzipSync(readFileSync(GCIDE));
  const out = new Map<string, string>();
  for (const line of readFileSync(GCIDE_INDEX, 'utf8').split('\n')) {
    const [head, off, len] = line.split('\t');
    if (!head || !off || !len) continue;
    const word = head.toLowerCase();
    if (!/^[a-z]{4,}$/.test(word) || !words.has(word) || out.has(word)) continue;
    const entry = dict.subarray(b64(off), b64(off) + b64(len)).toString('utf8');
    const paragraphs = entry.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim());
    let def = paragraphs.find((p) => /^1\. /.test(p)) ?? paragraphs.find((p, i) => i > 0 && !p.startsWith('[') && !p.includes('--') && /[a-z]/.test(p));
    if (!def) continue;
    def = def
      .replace(/^1\. /, '')
      .replace(/\[1913 Webster\]|\[PJC\]|\[Obs\.\]|\[R\.\]|\[Colloq\.\]/g, '')
      .replace(/[{}]/g, '')
      .replace(/\[[^\]]*\]/g, '')
      .trim();
    // mask the headword and its inflections
    def = def
      .replace(new RegExp(`\\b${word}(s|es|ed|d|ing|er|ers)?\\b`, 'gi'), '')
      .replace(/\s+/g, ' ')
      .trim();
    if (def.split(' ').length < 6 || def.length > 400) continue;
    out.set(word, def);
  }
  return out;
}

function ndcgAt10(ranked: string[], relevant: Set<string>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(10, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal ? dcg / ideal : 0;
}
const recallAt = (ranked: string[], relevant: Set<string>, k: number) => ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;

export async function searchQualityBench(): Promise<void> {
  ensureSources();
  const t0 = performance.now();
  const synsets = wordnet();
  const byLemma = new Map<string, Synset[]>();
  for (const s of synsets) for (const l of s.lemmas) byLemma.set(l, [...(byLemma.get(l) ?? []), s]);
  const defs = gcide(new Set([...byLemma.keys()].filter((w) => /^[a-z]{4,}$/.test(w))));
  // Queries: a deterministic sample of headwords with 1–8 synsets (relevance judgments).
  const candidates = [...defs.keys()].filter((w) => byLemma.get(w)!.length <= 8).sort((a, b) => (sha(a) < sha(b) ? -1 : 1));
  const queries = candidates.slice(0, QUERIES).map((w) => ({ word: w, text: defs.get(w)!, relevant: new Set(byLemma.get(w)!.map((s) => s.id)) }));
  // Documents: every relevant synset plus a deterministic sample of the others, up to DOCS.
  const docIds = new Set(queries.flatMap((q) => [...q.relevant]));
  for (const s of [...synsets].sort((a, b) => (sha(a.id) < sha(b.id) ? -1 : 1))) {
    if (docIds.size >= DOCS) break;
    docIds.add(s.id);
  }
  const docs = synsets.filter((s) => docIds.has(s.id));
  process.stdout.write(
    `\n## Search quality: GCIDE definitions → WordNet glosses\n${queries.length} queries (GCIDE first senses, headword masked), ${docs.length} documents (WordNet 3.0 glosses: all ${[...new Set(queries.flatMap((q) => [...q.relevant]))].length} relevant synsets plus a deterministic sample of the other ${synsets.length}), relevant = synsets whose lemmas contain the headword; built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-quality-'));
  const index = new SqliteChunkIndex(join(dir, 'chunks.sqlite'));
  const embedder = new UseLiteEmbedder();
  try {
    await index.setup();
    const store = uuidOf('bench-store');
    const fileOf = new Map<string, string>();
    const e0 = performance.now();
    let seq = 0n;
    for (let i = 0; i < docs.length; i += 256) {
      const batch = docs.slice(i, i + 256);
      const vectors = await embedder.embed(
        batch.map((d) => d.gloss),
        'document',
      );
      await index.write(
        batch.flatMap((d, j) => {
          const fileId = uuidOf(d.id);
          fileOf.set(fileId, d.id);
          return [
            { op: 'putFile' as const, file: { storeId: store, fileId, organizationId: store, filename: d.id, externalId: null, metadata: null, generation: 1 } },
            {
              op: 'setChunks' as const,
              storeId: store,
              fileId,
              generation: 1,
              chunks: [{ chunkIndex: 0, type: 'text' as const, text: d.gloss, offset: 0, mimeType: 'text/plain', generatedMetadata: null }],
            },
            { op: 'setVectors' as const, storeId: store, fileId, generation: 1, model: embedder.model, vectors: [vectors[j]] },
          ];
        }),
        { projection: 'bench', version: 1, position: { commit: ++seq, prepare: seq } },
      );
    }
    process.stdout.write(`indexed with ${embedder.model} in ${((performance.now() - e0) / 1000).toFixed(1)} s\n\n`);

    const runs: Array<{ lexical: ScoredChunk[]; dense: ScoredChunk[]; relevant: Set<string> }> = [];
    for (const q of queries) {
      const [v] = await embedder.embed([q.text], 'query');
      const lexical = await index.searchLexical({ storeIds: [store], text: q.text, topK: 100 });
      const dense = await index.searchDense({ storeIds: [store], vector: v, topK: 100, model: embedder.model });
      runs.push({ lexical, dense, relevant: q.relevant });
    }
    const ids = (list: ScoredChunk[]) => list.map((c) => fileOf.get(c.fileId)!);
    const score = (rank: (r: (typeof runs)[number]) => ScoredChunk[]) => {
      let n = 0;
      let r = 0;
      for (const run of runs) {
        const ranked = ids(rank(run));
        n += ndcgAt10(ranked, run.relevant);
        r += recallAt(ranked, run.relevant, 100);
      }
      return { ndcg: n / runs.length, recall: r / runs.length };
    };
    const hybrid = (method: FusionMethod, w: number) => (run: (typeof runs)[number]) => fuse(run.lexical, run.dense, { method, lexicalWeight: w });
    const rows: Array<[string, { ndcg: number; recall: number }]> = [
      ['lexical only (BM25, SQLite FTS5)', score((r) => r.lexical)],
      [`dense only (${embedder.model})`, score((r) => r.dense)],
      ['hybrid (default: relative fusion, lexical weight 0.5)', score(hybrid('relative', 0.5))],
      ['hybrid + rerank (no cross-encoder offline: = hybrid)', score(hybrid('relative', 0.5))],
    ];
    const sweep: Array<[string, { ndcg: number; recall: number }]> = [];
    for (const w of [0.3, 0.4, 0.6, 0.7]) sweep.push([`relative fusion, lexical weight ${w}`, score(hybrid('relative', w))]);
    sweep.push(['reciprocal rank fusion (k = 60), equal weights', score(hybrid('rrf', 0.5))]);
    const table = (title: string, rs: typeof rows) => {
      const w = Math.max(...rs.map((r) => r[0].length), title.length);
      process.stdout.write(`| ${title.padEnd(w)} | nDCG@10 | recall@100 |\n|${'-'.repeat(w + 2)}|--------:|-----------:|\n`);
      for (const [k, v] of rs) process.stdout.write(`| ${k.padEnd(w)} | ${v.ndcg.toFixed(3).padStart(7)} | ${v.recall.toFixed(3).padStart(10)} |\n`);
      process.stdout.write('\n');
    };
    table('mode', rows);
    table('fusion variants (for the record)', sweep);
  } finally {
    await embedder.close();
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

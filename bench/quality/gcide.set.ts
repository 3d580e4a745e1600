import { execFileSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { gunzipSync } from 'zlib';
import { join } from 'path';
import { QualitySet } from './metrics';
import { sha } from './names';

const GCIDE = '/usr/share/dictd/gcide.dict.dz';
const GCIDE_INDEX = '/usr/share/dictd/gcide.index';
const WORDNET = '/usr/share/wordnet';
const QUERIES = Number(process.env.BENCH_QUALITY_QUERIES ?? 300);
const DOCS = Number(process.env.BENCH_QUALITY_DOCS ?? 6000);

/** Installs Debian's dict-gcide and wordnet-base when they are missing (the collection's sources). */
export function ensureSources(): void {
  if (existsSync(GCIDE) && existsSync(join(WORDNET, 'data.noun'))) return;
  process.stdout.write('installing dict-gcide and wordnet-base from Debian…\n');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (args: string[]) =>
    execFileSync(sudo.length ? 'sudo' : args[0], sudo.length ? args : args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'dict-gcide', 'wordnet-base']);
}

export interface Synset {
  id: string;
  lemmas: string[];
  gloss: string;
}

export function wordnet(): Synset[] {
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
export function gcide(words: Set<string>): Map<string, string> {
  const dict = gunzipSync(readFileSync(GCIDE));
  const out = new Map<string, string>();
  for (const line of readFileSync(GCIDE_INDEX, 'utf8').split('\n')) {
    const [head, off, len] = line.split('\t');
    if (!head || !off || !len) continue;
    const word = head.toLowerCase();
    if (!/^[a-z]{4,}$/.test(word) || !words.has(word) || out.has(word)) continue;
    const entry = dict.subarray(b64(off), b64(off) + b64(len)).toString('utf8');
    const paragraphs = entry.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim());
    let def =
      paragraphs.find((p) => /^1\. /.test(p)) ??
      paragraphs.find((p, i) => i > 0 && !p.startsWith('[') && !p.includes('--') && /[a-z]/.test(p));
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

/**
 * GCIDE definitions → WordNet glosses: GCIDE first senses with the headword masked as queries,
 * WordNet 3.0 glosses as documents (every relevant synset plus a deterministic sample of the others,
 * up to BENCH_QUALITY_DOCS), relevant = the synsets whose lemmas contain the headword.
 */
export function gcideSet(): QualitySet & { about: string } {
  ensureSources();
  const t0 = performance.now();
  const synsets = wordnet();
  const byLemma = new Map<string, Synset[]>();
  for (const s of synsets) for (const l of s.lemmas) byLemma.set(l, [...(byLemma.get(l) ?? []), s]);
  const defs = gcide(new Set([...byLemma.keys()].filter((w) => /^[a-z]{4,}$/.test(w))));
  // Queries: a deterministic sample of headwords with 1–8 synsets (relevance judgments).
  const candidates = [...defs.keys()]
    .filter((w) => byLemma.get(w)!.length <= 8)
    .sort((a, b) => (sha(a) < sha(b) ? -1 : 1));
  const queries = candidates
    .slice(0, QUERIES)
    .map((w) => ({ text: defs.get(w)!, gains: new Map(byLemma.get(w)!.map((s) => [s.id, 1])) }));
  // Documents: every relevant synset plus a deterministic sample of the others, up to DOCS.
  const docIds = new Set(queries.flatMap((q) => [...q.gains.keys()]));
  for (const s of [...synsets].sort((a, b) => (sha(a.id) < sha(b.id) ? -1 : 1))) {
    if (docIds.size >= DOCS) break;
    docIds.add(s.id);
  }
  const docs = synsets.filter((s) => docIds.has(s.id));
  const about = `${queries.length} queries (GCIDE first senses, headword masked), ${docs.length} documents (WordNet 3.0 glosses: all ${[...new Set(queries.flatMap((q) => [...q.gains.keys()]))].length} relevant synsets plus a deterministic sample of the other ${synsets.length}), relevant = synsets whose lemmas contain the headword; built in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
  return {
    docs: docs.map((d) => ({ id: d.id, filename: `${d.id.replace(':', '-')}.txt`, body: d.gloss })),
    queries,
    about,
  };
}

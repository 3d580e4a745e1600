import { readFileSync } from 'fs';
import { join } from 'path';
import { QualitySet } from './metrics';

/** The folder holding the BEIR collections (cisi/, cranfield/). */
export const DATA = process.env.BENCH_QUALITY_DATA ?? join(__dirname, '..', '..', '..', '..', 'shared', 'data');

/** A BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels/test.tsv), each document uploaded as `<id>.md`: `# title` then the text. */
export function beir(dir: string): QualitySet {
  const lines = (f: string) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
  const docs = lines('corpus.jsonl').map((l) => {
    const d = JSON.parse(l) as { _id: string; title?: string; text: string };
    return {
      id: d._id,
      filename: `${d._id}.md`,
      body: `${d.title?.trim() ? `# ${d.title.trim()}\n\n` : ''}${d.text}\n`,
    };
  });
  const gains = new Map<string, Map<string, number>>();
  for (const l of lines('qrels/test.tsv').slice(1)) {
    const [q, d, g] = l.split('\t');
    if (Number(g) > 0) gains.set(q, (gains.get(q) ?? new Map<string, number>()).set(d, Number(g)));
  }
  const queries = lines('queries.jsonl')
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => gains.has(q._id))
    .map((q) => ({ text: q.text, gains: gains.get(q._id)! }));
  return { docs, queries };
}

import { ChunkHit } from '@larder/chunk-index';
import { SqliteChunkIndex } from '@larder/chunk-index/embedded/sqlite.chunk-index';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import { candidateWindow } from '@larder/search/search.config';
import { fuse, FusionOptions } from '@larder/search/ranking';
import { embedCached } from './variants';
import { Score } from './metrics';

/** The top_k of the candidate-window rows, and the windows each is fused from. */
const WINDOW_TOP_KS = [10, 100];
const WINDOWS = [50, 100, 150, 200, 300, 500];

/**
 * The candidate window: a search of top_k results fuses `window` candidates of each retriever (the
 * server's default index, RM3 included) with the default fusion; its first top_k results are scored
 * (nDCG@10 and recall@100 of that answer), for each window in `WINDOWS` of at least top_k, the
 * server's (`candidateWindow`, default factor 5) marked.
 */
export async function windowRows(
  index: SqliteChunkIndex,
  store: string,
  queries: Array<{ text: string }>,
  embedder: UseLiteEmbedder,
  fusion: FusionOptions,
  score: (answers: ChunkHit[][]) => Score,
): Promise<Array<[string, Score, string]>> {
  const depth = Math.max(...WINDOWS);
  const lexical: ChunkHit[][] = [];
  const dense: ChunkHit[][] = [];
  for (const q of queries) {
    const [v] = await embedCached(embedder, [q.text], 'query');
    lexical.push(await index.searchLexical({ storeIds: [store], text: q.text, topK: depth }));
    dense.push(await index.searchDense({ storeIds: [store], vector: v, topK: depth, model: embedder.model }));
  }
  const rows: Array<[string, Score, string]> = [];
  for (const topK of WINDOW_TOP_KS) {
    const server = candidateWindow(topK, 5);
    for (const w of [...new Set([...WINDOWS, server])].filter((x) => x >= topK).sort((a, b) => a - b)) {
      const answers = lexical.map((l, i) => fuse(l.slice(0, w), dense[i].slice(0, w), fusion).slice(0, topK));
      rows.push([`top_k ${topK}, window ${w}${w === server ? ' (the server)' : ''}`, score(answers), '']);
    }
  }
  return rows;
}

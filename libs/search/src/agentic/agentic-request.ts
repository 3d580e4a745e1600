import type { LiveEvents } from '@larder/kernel';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import type { CommonParams } from '../store-query.request.dto';
import type { AgenticOptions } from '../search-options.request.dto';
import type { WebPart, WebRetrieval } from '../web/web-retrieval';
import type { AgenticRun, AgenticSearch } from './agentic-search';

/** What a search or a question hands its agentic run: the stores and query it resolved, and the web part it asked for. */
export interface AgenticRequest {
  stores: StoreRef[];
  /** The query as asked, and as the search rules left it. */
  query: string;
  effective: string;
  /** The asked query's embedding, already under way. */
  prefetched: Promise<Float32Array | null>;
  params: Pick<CommonParams, 'filter' | 'fileIds' | 'topK'>;
  live?: LiveEvents;
  signal?: AbortSignal;
  web: WebPart | null;
}

/**
 * Runs the agentic search of a request: its trace goes to the live stream, the prefetched embedding
 * serves when the rules left the query as asked, and the web results join the question's own search
 * (round 1), ranked with the stores' candidates.
 */
export function runAgentic(
  agentic: AgenticSearch,
  webStore: WebRetrieval,
  config: AgenticOptions,
  { stores, query, effective, prefetched, params, live, signal, web }: AgenticRequest,
): Promise<AgenticRun> {
  return agentic.run({
    stores,
    question: effective,
    params,
    config,
    trace: live ? (name, data) => live.send(name, { type: name, ...data }) : undefined,
    signal,
    questionVector: effective === query ? prefetched : undefined,
    searchQuestion: web
      ? (q, candidates, vector) => webStore.retrieve(stores, q, params, candidates, web, vector)
      : undefined,
  });
}

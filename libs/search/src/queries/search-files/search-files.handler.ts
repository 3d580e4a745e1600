import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { addTiming, STORE_FILE_VIEWS, storeFileKey, StoreFileViews } from '@larder/kernel';
import { toScoredChunkResponse } from '@larder/chunk-index';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { RankedChunk, Retrieval } from '../../retrieval';
import { candidateWindow } from '../../search.config';
import { StoreAccess } from '../../store-access';
import { SearchActivity } from '../../search-activity';
import { SearchAdmission } from '../../search-admission';
import { applyRewrites, PinRule, SearchRulePins } from '../../rules/search-rule-effects';
import { MAX_TOP_K } from '../../store-query.request.dto';
import { SearchFilesQuery } from './search-files.query';
import type { SearchFilesParams } from './search-files.request.dto';

/**
 * `ScoredStoreFile`: a `StoreFile` (exactly as the store-file routes answer it) with the file's
 * `score` and its best `chunks` in the scored-chunk shape of search (null with `return_chunks: false`).
 * Shape of @mixedbread/sdk up to 0.61.0 (`ScoredStoreFile` / `FileSearchResponse` in
 * `src/resources/stores/files.ts`, the last release with `stores.files.search`); the mxbai CLI (2.4.0,
 * `store search --file-search`) reads `filename`, `score`, `store_id` and `metadata` of it.
 */
export type ScoredStoreFileResponse = Record<string, unknown> & {
  score: number;
  chunks: ReturnType<typeof toScoredChunkResponse>[] | null;
};
export type SearchFilesResponse = { object: 'list'; data: ScoredStoreFileResponse[] };

/** A file's place in a file ranking: its score and its chunks, the one that places it first. */
export interface RankedFile {
  storeId: string;
  fileId: string;
  score: number;
  chunks: RankedChunk[];
}

/**
 * Groups a chunk ranking (best first) by store file and ranks the files by their best chunk's score
 * (max pooling: a file is as relevant as its most relevant passage; summing or averaging would favour
 * long files with many mediocre chunks, and no bonus for several good chunks is added because its
 * weight could not be tuned without relevance judgements of files). Equal scores keep the order of
 * the chunk ranking. Each file keeps its chunks in ranking order.
 */
export function rankFiles(chunks: RankedChunk[]): RankedFile[] {
  const files = new Map<string, RankedFile>();
  for (const c of chunks) {
    const key = storeFileKey(c.storeId, c.fileId);
    const f = files.get(key);
    if (f) f.chunks.push(c);
    else files.set(key, { storeId: c.storeId, fileId: c.fileId, score: c.score, chunks: [c] });
  }
  for (const f of files.values()) f.score = Math.max(...f.chunks.map((c) => c.score));
  return [...files.values()].sort((a, b) => b.score - a.score);
}

/**
 * File-level search (`POST /v1/stores/files/search`): the hybrid store search over chunks (rules,
 * filters, `file_ids`, rerank), grouped into files ranked by their best chunk. Enough candidate chunks
 * are retrieved for `top_k` distinct files with their chunks; `score_threshold` applies to the file's
 * score and to the chunks listed under it; `chunk_search_result` rules pin a chunk in the chunk
 * ranking (as in search), `file_search_result` rules put their file at `result_index` of the file
 * ranking. A file the store-files read model no longer holds (removed meanwhile) is left out. Recorded
 * and billed as a search (`StoreSearchPerformed`, with the chunks behind the returned files).
 */
@QueryHandler(SearchFilesQuery)
export class SearchFilesHandler implements IQueryHandler<SearchFilesQuery, SearchFilesResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly retrieval: Retrieval,
    private readonly pins: SearchRulePins,
    private readonly activity: SearchActivity,
    @Inject(STORE_FILE_VIEWS) private readonly views: StoreFileViews,
    private readonly admission: SearchAdmission,
  ) {}

  /** In its turn (search-admission.ts): a full queue is a 503. */
  execute(query: SearchFilesQuery): Promise<SearchFilesResponse> {
    return this.admission.run(() => this.search(query));
  }

  private async search({ principal: p, params, viewer }: SearchFilesQuery): Promise<SearchFilesResponse> {
    const t0 = performance.now();
    const { query, options } = params;
    const te = performance.now();
    const prefetched = this.retrieval.embedQuery(query).then((v) => (addTiming('embed', performance.now() - te), v));
    const tr = performance.now();
    const { stores, rules } = await this.access.resolveWithRules(
      p,
      params.storeIdentifiers,
      options.applySearchRules ? query : null,
    );
    addTiming('stores_and_rules', performance.now() - tr);

    const { effective, rewritten, pins } = applyRewrites(query, rules);
    // top_k files with chunks_per_file chunks each, from as many candidates of each retriever as a
    // chunk search of that many chunks takes, at least 100, at most what the largest chunk search takes
    const factor = this.retrieval.config.candidateFactor;
    const candidates = Math.min(
      candidateWindow(params.topK * Math.max(options.chunksPerFile, 1), factor, 100),
      candidateWindow(MAX_TOP_K, factor),
    );
    let chunks = await this.retrieval.retrieve(
      stores,
      effective,
      params,
      candidates,
      effective === query ? prefetched : undefined,
    );
    const reranked = await this.retrieval.rerank(effective, chunks, options);
    chunks = reranked.results;
    chunks = await this.pins.pin(
      chunks,
      pins.filter((r) => r.type === 'chunk_search_result'),
      stores,
      params,
    );
    let files = await this.pinFiles(
      rankFiles(chunks),
      pins.filter((r) => r.type === 'file_search_result'),
      stores,
      params,
    );
    // a file passes on its score; under it, the chunk that places it and the others that pass too
    files = files
      .filter((f) => f.score >= options.scoreThreshold)
      .map((f) => ({ ...f, chunks: f.chunks.filter((c, i) => i === 0 || c.score >= options.scoreThreshold) }));

    const tf = performance.now();
    const found = await this.withStoreFiles(p.organizationId, files, params.topK, viewer);
    addTiming('files', performance.now() - tf);
    const shown = (f: RankedFile) => f.chunks.slice(0, options.chunksPerFile);
    const data = found.map(({ file, view }) => ({
      ...view,
      metadata: options.returnMetadata ? view.metadata : null,
      chunks: options.returnChunks ? shown(file).map((c) => toScoredChunkResponse(c, options.returnMetadata)) : null,
      score: file.score,
    }));
    addTiming('search', performance.now() - t0);
    const behind = found.flatMap(({ file }) => file.chunks.slice(0, Math.max(options.chunksPerFile, 1)));
    this.activity.record(p.organizationId, {
      type: 'StoreSearchPerformed',
      data: {
        ...this.activity.common(p, stores, params, behind, t0),
        query,
        rewrittenQuery: rewritten,
        rerank: reranked.reranked,
      },
    });
    return { object: 'list', data };
  }

  /**
   * `file_search_result` rules, lowest `result_index` first: the rule's chunk (which still has to pass
   * the request's filters) goes first among its file's chunks and the file to `result_index`, taking
   * the score of the place it takes so the ranking stays ordered.
   */
  private async pinFiles(
    files: RankedFile[],
    rules: PinRule[],
    stores: StoreRef[],
    params: SearchFilesParams,
  ): Promise<RankedFile[]> {
    const out = [...files];
    for (const rule of [...rules].sort((a, b) => a.result_index - b.result_index)) {
      const storeId = (stores.find((s) => s.id === rule.store_id) ?? stores[0]).id;
      const found = out.findIndex((f) => f.storeId === storeId && f.fileId === rule.file_id);
      const file: RankedFile =
        found >= 0 ? out.splice(found, 1)[0] : { storeId, fileId: rule.file_id, score: 0, chunks: [] };
      let chunk = file.chunks.find((c) => c.chunkIndex === rule.chunk_index);
      // not among the candidates: fetched (and checked against the filters) as a chunk pin would be
      chunk ??= (await this.pins.pin([], [{ ...rule, store_id: storeId, result_index: 0 }], stores, params))[0];
      if (!chunk) {
        if (found >= 0) out.splice(found, 0, file);
        continue;
      }
      const at = Math.min(rule.result_index, out.length);
      const score = Math.max(file.score, out[at]?.score ?? out[at - 1]?.score ?? file.score);
      out.splice(at, 0, { ...file, score, chunks: [{ ...chunk, score }, ...file.chunks.filter((c) => c !== chunk)] });
    }
    return out;
  }

  /** The first `topK` files (in ranking order) that the store-files read model holds, with their `StoreFile` answers. */
  private async withStoreFiles(
    organizationId: string,
    files: RankedFile[],
    topK: number,
    viewer: SearchFilesQuery['viewer'],
  ) {
    const out: Array<{ file: RankedFile; view: Record<string, unknown> }> = [];
    for (let i = 0; out.length < topK && i < files.length;) {
      const batch = files.slice(i, i + topK - out.length);
      i += batch.length;
      const views = await this.views.view(organizationId, batch, viewer);
      for (const file of batch) {
        const view = views.get(storeFileKey(file.storeId, file.fileId));
        if (view) out.push({ file, view });
      }
    }
    return out;
  }
}

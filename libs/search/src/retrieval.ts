import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { addTiming, evaluateFilter, FilterNode, timed } from '@larder/kernel';
import { CHUNK_INDEX, ChunkHit, ChunkIndex, ChunkQuery, ScoredChunk } from '@larder/chunk-index';
import { EMBEDDER, Embedder } from '@larder/ai';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { chunkKey, fuse, fuseHits, FusionOptions, LEAD_EVIDENCE } from './ranking';
import { RERANKER, Reranker } from './reranker.port';
import { DEFAULT_QUERY_CACHE_BYTES, SEARCH_CONFIG, SearchConfig } from './search.config';
import type { CommonParams } from './store-query.request.dto';
import type { SearchOptions } from './search-options.request.dto';

/** Where a fused chunk came from: its best rank in the lexical and dense lists, and which of them found it. */
export type FirstStage = { firstStagePosition?: number | null; firstStageSource?: 'dense' | 'sparse' | 'both' | null };
/** A chunk on its way to the response, with where it came from. */
export type RankedChunk = ScoredChunk & FirstStage;
/** A fused hit whose chunk is not read yet (`Retrieval.hydrate` reads it), with where it came from. */
export type RankedHit = ChunkHit & FirstStage;

/** Whether a chunk passes a compiled filter (file metadata, and `generated_metadata.*` the chunk's). */
export const passesFilter = (c: ScoredChunk, filter: FilterNode | null): boolean =>
  !filter || evaluateFilter(filter, { file: c.metadata, chunk: c.generatedMetadata });

/** A fused list annotated with where each chunk came from: its best rank in the lexical and dense lists, and which of them found it. */
export function withFirstStage<T extends ChunkHit>(fused: T[], lexical: T[], dense: T[]): Array<T & FirstStage> {
  const lexRank = new Map(lexical.map((c, i) => [chunkKey(c), i]));
  const denseRank = new Map(dense.map((c, i) => [chunkKey(c), i]));
  return fused.map((c) => {
    const k = chunkKey(c);
    const l = lexRank.get(k);
    const d = denseRank.get(k);
    const source: FirstStage['firstStageSource'] =
      l !== undefined && d !== undefined ? 'both' : l !== undefined ? 'sparse' : 'dense';
    return { ...c, firstStagePosition: Math.min(l ?? Infinity, d ?? Infinity), firstStageSource: source };
  });
}

/**
 * Hybrid retrieval: the lexical (BM25) and dense searches of the chunk index, fused into one ranking
 * (and reranked where a reranker is configured), with a cache of recent query embeddings.
 */
@Injectable()
export class Retrieval {
  private readonly logger = new Logger('StoreSearch');

  /**
   * Query embeddings of recent queries (most recently used last): a repeated query, or the same
   * query arriving twice at once, costs one model call. A failed embedding is not kept.
   */
  private readonly queryVectors = new Map<string, { vector: Promise<Float32Array | null>; bytes: number }>();
  /** What the kept query embeddings take (their vectors and queries, estimated), bytes. */
  private queryVectorBytes = 0;

  constructor(
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(SEARCH_CONFIG) readonly config: SearchConfig,
    @Optional() @Inject(RERANKER) private readonly reranker: Reranker | null,
  ) {}

  /** How many query embeddings the cache holds now, the bytes they take, and the bytes it keeps at most. */
  stats(): { queryEmbeddings: number; queryEmbeddingBytes: number; queryEmbeddingCapacityBytes: number } {
    return {
      queryEmbeddings: this.queryVectors.size,
      queryEmbeddingBytes: this.queryVectorBytes,
      queryEmbeddingCapacityBytes: this.queryCacheBytes,
    };
  }

  private get queryCacheBytes(): number {
    return this.config.queryCacheBytes ?? DEFAULT_QUERY_CACHE_BYTES;
  }

  private forgetQuery(key: string): void {
    const kept = this.queryVectors.get(key);
    if (!kept) return;
    this.queryVectors.delete(key);
    this.queryVectorBytes -= kept.bytes;
  }

  /** The model and dimensions of the query embeddings the dense index is searched with (an embedding query must match them). */
  get embedding(): { model: string; dimensions: number } {
    return { model: this.embedder.model, dimensions: this.embedder.dimensions };
  }

  embedQuery(query: string): Promise<Float32Array | null> {
    const key = `${this.embedder.model}\u0000${query}`;
    const kept = this.queryVectors.get(key);
    if (kept) {
      this.queryVectors.delete(key);
      this.queryVectors.set(key, kept);
      return kept.vector;
    }
    const vector = this.embedder
      .embed([query], 'query')
      .then(([v]) => v)
      .catch((err: Error) => {
        if (this.queryVectors.get(key)?.vector === vector) this.forgetQuery(key);
        this.logger.warn(`query embedding failed, answering from the lexical index only: ${err.message}`);
        return null;
      });
    // a vector of float32s, the key's UTF-16 code units and the entry's own objects (~200 bytes)
    const bytes = this.embedder.dimensions * 4 + key.length * 2 + 200;
    if (bytes > this.queryCacheBytes) return vector;
    this.queryVectors.set(key, { vector, bytes });
    this.queryVectorBytes += bytes;
    while (this.queryVectorBytes > this.queryCacheBytes) this.forgetQuery(this.queryVectors.keys().next().value!);
    return vector;
  }

  /** Hybrid retrieval + fusion, before rerank, rules, thresholds and top_k. Exposed for QA and facets. */
  async retrieve(
    stores: StoreRef[],
    query: string,
    params: Pick<CommonParams, 'filter' | 'fileIds'>,
    candidates: number,
    vectorPromise?: Promise<Float32Array | null>,
  ): Promise<RankedChunk[]> {
    const { lexical, dense } = await this.candidateLists(stores, query, params, candidates, vectorPromise);
    return withFirstStage(fuse(lexical, dense, this.fusion()), lexical, dense);
  }

  /**
   * As `retrieve`, the fused list as hits whose chunks are not read yet: the index reads no texts or
   * metadata of the 50 + 50 candidates, and `hydrate` reads those of the few an answer keeps.
   */
  async retrieveHits(
    stores: StoreRef[],
    query: string,
    params: Pick<CommonParams, 'filter' | 'fileIds'>,
    candidates: number,
    vectorPromise?: Promise<Float32Array | null>,
  ): Promise<RankedHit[]> {
    const { lexical, dense } = await this.lists(
      stores,
      query,
      params,
      candidates,
      vectorPromise,
      (q) => this.index.searchLexical(q),
      (q) => this.index.searchDense(q),
    );
    return fuseHits(lexical, dense, this.fusion());
  }

  /** The store search's fusion: the configured method and weight, with the lead evidence (LEAD_EVIDENCE). */
  private fusion(): FusionOptions {
    return { method: this.config.fusion, lexicalWeight: this.config.lexicalWeight, leadEvidence: LEAD_EVIDENCE };
  }

  /**
   * The chunks of the first `n` hits whose chunks still exist (a chunk deleted since the search is
   * passed over), in the hits' order with their scores and first stage. Timed as `hydrate`.
   */
  async hydrate(hits: RankedHit[], n: number): Promise<RankedChunk[]> {
    const t = performance.now();
    const out: RankedChunk[] = [];
    try {
      for (let next = 0; out.length < n && next < hits.length;) {
        const batch = hits.slice(next, next + n - out.length);
        next += batch.length;
        const byKey = new Map(batch.map((h) => [chunkKey(h), h]));
        for (const c of await this.index.hydrate(batch)) {
          const h = byKey.get(chunkKey(c));
          // the index's chunk (a fresh object) takes the hit's first stage: no copy of it
          if (h)
            out.push(
              Object.assign(c, { firstStagePosition: h.firstStagePosition, firstStageSource: h.firstStageSource }),
            );
        }
      }
      return out;
    } finally {
      addTiming('hydrate', performance.now() - t);
    }
  }

  /** Whether `rerank` reranks with these options: a reranker is configured and the search asks for it. */
  reranks(options: SearchOptions): boolean {
    return !!options.rerank && !!this.reranker;
  }

  /** The chunk index's lexical (BM25) and dense (cosine) candidate lists, before fusion (the web store ranks its results with them). */
  async candidateLists(
    stores: StoreRef[],
    query: string,
    params: Pick<CommonParams, 'filter' | 'fileIds'>,
    candidates: number,
    vectorPromise?: Promise<Float32Array | null>,
  ): Promise<{ lexical: ScoredChunk[]; dense: ScoredChunk[]; vector: Float32Array | null }> {
    return this.lists(
      stores,
      query,
      params,
      candidates,
      vectorPromise,
      async (q) => this.index.hydrate(await this.index.searchLexical(q)),
      async (q) => this.index.hydrate(await this.index.searchDense(q)),
    );
  }

  private async lists<T>(
    stores: StoreRef[],
    query: string,
    params: Pick<CommonParams, 'filter' | 'fileIds'>,
    candidates: number,
    vectorPromise: Promise<Float32Array | null> | undefined,
    searchLexical: (q: ChunkQuery) => Promise<T[]>,
    searchDense: (q: ChunkQuery) => Promise<T[]>,
  ): Promise<{ lexical: T[]; dense: T[]; vector: Float32Array | null }> {
    const vector = vectorPromise ?? this.embedQuery(query);
    if (!stores.length) return { lexical: [], dense: [], vector: await vector };
    const storeIds = stores.map((s) => s.id);
    const q = { storeIds, topK: candidates, filter: params.filter, fileIds: params.fileIds };
    // The lexical search runs beside the query's embedding and the dense search (the embedded index
    // reads BM25 in a worker thread); the timings overlap. An embedding query (no text) is dense only.
    const pendingLexical = query ? timed('lexical', () => searchLexical({ ...q, text: query })) : Promise.resolve([]);
    pendingLexical.catch(() => undefined);
    const v = await timed('embed_wait', () => vector);
    const dense = v ? await timed('dense', () => searchDense({ ...q, vector: v, model: this.embedder.model })) : [];
    // what the lexical search still takes once the dense one is done (the index's share of the wait)
    const lexical = await timed('lexical_wait', () => pendingLexical);
    return { lexical, dense, vector: v };
  }

  /**
   * With a cross-encoder behind the RERANKER port (LARDER_RERANKER: a local ONNX export or a rerank
   * endpoint), the head of the fused list is re-scored by it and reordered; without one, the hybrid
   * fusion is the ranking and `rerank` changes nothing (docs/api.md, Search). A reranker that fails (endpoint down,
   * model error) does not fail the search: the fused ranking stands, and `reranked` says so.
   */
  async rerank(
    query: string,
    results: RankedChunk[],
    options: SearchOptions,
  ): Promise<{ results: RankedChunk[]; reranked: boolean }> {
    // `rerank.top_k` keeps that many whether or not a reranker ranks them
    const kept = (r: RankedChunk[]) => (options.rerank?.topK ? r.slice(0, options.rerank.topK) : r);
    if (!options.rerank || !this.reranker || !results.length) return { results: kept(results), reranked: false };
    const head = results.slice(0, Math.min(results.length, Math.max(options.rerank.topK ?? 0, 50)));
    const docs = head.map((c) => {
      const wm = options.rerank!.withMetadata;
      if (!wm || !c.metadata || typeof c.metadata !== 'object') return c.text;
      const meta =
        wm === true
          ? c.metadata
          : Object.fromEntries(Object.entries(c.metadata as Record<string, unknown>).filter(([k]) => wm.includes(k)));
      return `${JSON.stringify(meta)}\n${c.text}`;
    });
    const t = performance.now();
    let scores: number[];
    try {
      scores = await this.reranker.score(query, docs);
      if (scores.length !== docs.length || scores.some((s) => !Number.isFinite(s)))
        throw new Error(`${scores.length} scores for ${docs.length} documents`);
    } catch (err) {
      this.logger.warn(
        `rerank with ${this.reranker.model} failed, answering with the fused ranking: ${(err as Error).message}`,
      );
      return { results: kept(results), reranked: false };
    } finally {
      addTiming('rerank', performance.now() - t);
    }
    // stable: equal scores keep their fused order
    const reranked = head
      .map((c, i) => ({ ...c, score: Math.min(1, Math.max(0, scores[i])) }))
      .sort((a, b) => b.score - a.score);
    return { results: kept(reranked), reranked: true };
  }
}

import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { RE2JS } from 're2js';
import {
  BadRequestError,
  CLOCK,
  Clock,
  evaluateFilter,
  FilterNode,
  ForbiddenError,
  ID_GENERATOR,
  IdGenerator,
  NotFoundError,
  Principal,
  Problems,
  READ_MODEL_CONSISTENCY,
  ReadModelCache,
  ReadModelConsistency,
  scopeAllows,
} from '@larder/kernel';
import { CHUNK_INDEX, ChunkIndex, ScoredChunk, toScoredChunkResponse } from '@larder/chunk-index';
import { EMBEDDER, Embedder } from '@larder/ai';

import { queryKey, SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { StoreRef, StoresReader } from '@larder/projections/stores/stores.reader';
import { chunkKey, fuse, FusionMethod } from './ranking';
import { RERANKER, Reranker } from './reranker.port';
import { CommonParams, parseCommon, parseQuery, parseSearchOptions, SearchOptions } from './search.request';
import { requiredLiterals } from './grep-literals';
import { SearchActivity } from './search-activity';
import { SearchEventResult } from './events';
import { SearchRuleEntry } from './rules/events';

export interface SearchConfig {
  fusion: FusionMethod;
  /** Weight of the lexical list in the fusion (the dense list gets the rest). */
  lexicalWeight: number;
  /** Candidates taken from each retriever: max(top_k × this, 50). */
  candidateFactor: number;
  /** list-chunks with `sort_by` sorts at most this many chunks (400 beyond: narrow it with filters or file_ids). */
  maxSortScan: number;
}
export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');

/** Milliseconds per step of a request, reported in the Server-Timing header. */
export type Timing = Record<string, number>;

/** `Server-Timing` header value of a timing record. */
export const serverTiming = (t: Timing) =>
  Object.entries(t)
    .map(([k, v]) => `${k};dur=${v.toFixed(2)}`)
    .join(', ');

/** A chunk on its way to the response, with where it came from. */
export type RankedChunk = ScoredChunk & { firstStagePosition?: number | null; firstStageSource?: 'dense' | 'sparse' | 'both' | null };

const eventResult = (c: RankedChunk): SearchEventResult => ({
  store_id: c.storeId,
  file_id: c.fileId,
  filename: c.filename,
  chunk_index: c.chunkIndex,
  score: c.score,
  first_stage_position: c.firstStagePosition ?? null,
  first_stage_source: c.firstStageSource ?? null,
});

/** Round-robin over per-store lists in request order, up to `limit`. */
function interleave<T>(lists: T[][], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const l of lists) if (i < l.length && out.length < limit) out.push(l[i]);
  }
  return out;
}

/** Python-style regex flags of a `query_regex` rule, in RE2. */
function ruleFlags(flags: string[]): number {
  let f = 0;
  if (flags.includes('IGNORECASE')) f |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('MULTILINE')) f |= RE2JS.MULTILINE;
  if (flags.includes('DOTALL')) f |= RE2JS.DOTALL;
  return f;
}

/** Replaces every match; `\1`, `\g<1>`, `\g<name>` and `$1` in the replacement refer to groups. */
export function regexReplace(pattern: string, flags: string[], replacement: string, input: string): string {
  const m = RE2JS.compile(pattern, ruleFlags(flags)).matcher(input);
  let out = '';
  let last = 0;
  let pos = 0;
  while (pos <= input.length && m.find(pos)) {
    const start = m.start();
    const end = m.end();
    out += input.slice(last, start);
    out += replacement.replace(/\\g<(\w+)>|\\(\d+)|\$(\d+)/g, (_, name: string | undefined, a: string | undefined, b: string | undefined) => {
      const g = name ?? a ?? b!;
      return (/^\d+$/.test(g) ? m.group(Number(g)) : m.group(g)) ?? '';
    });
    last = end;
    pos = end === start ? end + 1 : end;
  }
  return out + input.slice(last);
}

@Injectable()
export class StoreSearchService {
  private readonly logger = new Logger('StoreSearch');

  constructor(
    private readonly stores: StoresReader,
    private readonly rules: SearchRulesReader,
    private readonly activity: SearchActivity,
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) consistency: ReadModelConsistency,
    @Optional() @Inject(RERANKER) private readonly reranker: Reranker | null,
  ) {
    this.cache = new ReadModelCache(consistency);
  }

  /** Resolves ids or names in request order; a store of another organization does not exist (404). */
  async resolveStores(p: Principal, identifiers: string[]): Promise<StoreRef[]> {
    return (await this.resolveWithRules(p, identifiers, null)).stores;
  }

  /**
   * Lookups cached while the read models they come from are unchanged in this process (only where
   * this process applies them: a change is applied, and the entry outdated, before the write that
   * caused it answers): a request's stores by identifiers, and every rule of a set of stores.
   */
  private readonly cache: ReadModelCache;

  private async resolveCached(organizationId: string, identifiers: string[], query: string | null) {
    const stores = await this.cache.get(JSON.stringify(['stores', organizationId, identifiers]), ['stores'], () => this.stores.resolveMany(organizationId, identifiers));
    const resolved = identifiers.map((identifier, i) => ({ identifier, store: stores[i], rules: [] as SearchRuleEntry[][] }));
    if (query === null) return resolved;
    const ids = stores.filter((x): x is StoreRef => !!x).map((x) => x.id);
    const all = await this.cache.get(JSON.stringify(['rules', organizationId, ids]), ['search-rules'], () => this.rules.allOfStores(organizationId, ids));
    const key = queryKey(query);
    return resolved.map((r) => ({ ...r, rules: r.store ? all.filter((x) => x.storeId === r.store!.id && x.queryKey === key).map((x) => x.rules) : [] }));
  }

  /** Stores in request order (404 for one the caller's organization lacks) and the rules `query` triggers. */
  private async resolveWithRules(p: Principal, identifiers: string[], query: string | null): Promise<{ stores: StoreRef[]; rules: SearchRuleEntry[] }> {
    if (identifiers.includes('mixedbread/web')) throw new BadRequestError('The web store (mixedbread/web) is not available on this server: it needs a web search provider');
    const resolved = await this.resolveCached(p.organizationId, identifiers, query);
    const out: StoreRef[] = [];
    const rules: SearchRuleEntry[] = [];
    for (const { identifier, store: s, rules: r } of resolved) {
      if (!s) throw new NotFoundError(`Store ${identifier} not found`);
      if (!scopeAllows(p.scope, { method: 'search', resourceType: 'store' }, s.id) && !scopeAllows(p.scope, { method: 'read', resourceType: 'store' }, s.id)) {
        throw new ForbiddenError(`This API key may not search store ${s.name}`);
      }
      if (!out.some((x) => x.id === s.id)) {
        out.push(s);
        rules.push(...r.flat());
      }
    }
    return { stores: out, rules };
  }

  private passes(c: ScoredChunk, filter: FilterNode | null): boolean {
    return !filter || evaluateFilter(filter, { file: c.metadata, chunk: c.generatedMetadata });
  }

  /**
   * Query embeddings of recent queries (most recently used last): a repeated query, or the same
   * query arriving twice at once, costs one model call. A failed embedding is not kept.
   */
  private readonly queryVectors = new Map<string, Promise<Float32Array | null>>();
  private static readonly QUERY_VECTORS_KEPT = 1024;

  private embedQuery(query: string): Promise<Float32Array | null> {
    const key = `${this.embedder.model}\u0000${query}`;
    const kept = this.queryVectors.get(key);
    if (kept) {
      this.queryVectors.delete(key);
      this.queryVectors.set(key, kept);
      return kept;
    }
    const vector = this.embedder
      .embed([query], 'query')
      .then(([v]) => v)
      .catch((err: Error) => {
        if (this.queryVectors.get(key) === vector) this.queryVectors.delete(key);
        this.logger.warn(`query embedding failed, answering from the lexical index only: ${err.message}`);
        return null;
      });
    this.queryVectors.set(key, vector);
    if (this.queryVectors.size > StoreSearchService.QUERY_VECTORS_KEPT) this.queryVectors.delete(this.queryVectors.keys().next().value!);
    return vector;
  }

  /** Hybrid retrieval + fusion (+ rerank), before rules, thresholds and top_k. Exposed for QA and facets. */
  async retrieve(
    stores: StoreRef[],
    query: string,
    params: Pick<CommonParams, 'filter' | 'fileIds'>,
    candidates: number,
    vectorPromise?: Promise<Float32Array | null>,
    timing: Timing = {},
  ): Promise<RankedChunk[]> {
    const storeIds = stores.map((s) => s.id);
    const q = { storeIds, topK: candidates, filter: params.filter, fileIds: params.fileIds };
    const vector = vectorPromise ?? this.embedQuery(query);
    const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const t = performance.now();
      try {
        return await fn();
      } finally {
        timing[name] = (timing[name] ?? 0) + performance.now() - t;
      }
    };
    // The lexical search runs beside the query's embedding and the dense search (the embedded index
    // reads BM25 in a worker thread); the timings overlap.
    const pendingLexical = timed('lexical', () => this.index.searchLexical({ ...q, text: query }));
    pendingLexical.catch(() => undefined);
    const v = await timed('embed_wait', () => vector);
    const dense = v ? await timed('dense', () => this.index.searchDense({ ...q, vector: v, model: this.embedder.model })) : [];
    const lexical = await pendingLexical;
    const lexRank = new Map(lexical.map((c, i) => [chunkKey(c), i]));
    const denseRank = new Map(dense.map((c, i) => [chunkKey(c), i]));
    return fuse(lexical, dense, { method: this.config.fusion, lexicalWeight: this.config.lexicalWeight }).map((c) => {
      const k = chunkKey(c);
      const l = lexRank.get(k);
      const d = denseRank.get(k);
      return { ...c, firstStagePosition: Math.min(l ?? Infinity, d ?? Infinity), firstStageSource: l !== undefined && d !== undefined ? 'both' : l !== undefined ? 'sparse' : 'dense' };
    });
  }

  /** `timing` receives the time spent per step (ms), for the Server-Timing header. */
  async search(p: Principal, input: unknown, timing: Timing = {}) {
    const t0 = performance.now();
    const problems = new Problems();
    const common = parseCommon(input, {}, problems);
    const query = parseQuery(problems, common.body.query, true);
    const options = parseSearchOptions(problems, common.body.search_options);
    problems.throwIfAny();
    // The query's embedding runs beside the lookup of stores and rules (one round trip); a rewrite
    // (rare) embeds the rewritten query instead.
    const te = performance.now();
    const prefetched = this.embedQuery(query!).then((v) => ((timing.embed = performance.now() - te), v));
    const tr = performance.now();
    const { stores, rules } = await this.resolveWithRules(p, common.storeIdentifiers, options.applySearchRules ? query! : null);
    timing.stores_and_rules = performance.now() - tr;

    // Search rules: query rewrites first, then result pins.
    let effective = query!;
    let rewritten: string | null = null;
    const pins: Extract<SearchRuleEntry, { result_index: number }>[] = [];
    for (const r of rules) {
      if (r.type === 'query_string') effective = r.substitution;
      else if (r.type === 'query_regex') effective = regexReplace(r.pattern, r.flags, r.replacement, effective);
      else pins.push(r);
    }
    if (effective !== query) rewritten = effective;

    const candidates = Math.max(common.topK * this.config.candidateFactor, 50);
    let results = await this.retrieve(stores, effective, common, candidates, effective === query ? prefetched : undefined, timing);
    results = await this.rerank(effective, results, options);
    results = await this.pin(results, pins, stores, common);
    results = results.filter((c) => c.score >= options.scoreThreshold).slice(0, common.topK);

    const data = results.map((c) => toScoredChunkResponse(c, options.returnMetadata));
    timing.search = performance.now() - t0;
    this.activity.record(p.organizationId, {
      type: 'StoreSearchPerformed',
      data: {
        ...this.activityOf(p, stores, common, results, t0),
        query: query!,
        rewrittenQuery: rewritten,
        rerank: !!options.rerank,
      },
    });
    return { object: 'list' as const, data };
  }

  /**
   * With a cross-encoder adapter behind the RERANKER port, the head of the fused list is re-scored by
   * it; without one (the case today: none is available offline), the hybrid fusion is the ranking and
   * `rerank` changes nothing (README).
   */
  private async rerank(query: string, results: RankedChunk[], options: SearchOptions): Promise<RankedChunk[]> {
    if (!options.rerank || !this.reranker || !results.length) return results;
    const head = results.slice(0, Math.min(results.length, Math.max(options.rerank.topK ?? 0, 50)));
    const docs = head.map((c) => {
      const wm = options.rerank!.withMetadata;
      if (!wm || !c.metadata || typeof c.metadata !== 'object') return c.text;
      const meta = wm === true ? c.metadata : Object.fromEntries(Object.entries(c.metadata as Record<string, unknown>).filter(([k]) => (wm as string[]).includes(k)));
      return `${JSON.stringify(meta)}\n${c.text}`;
    });
    const scores = await this.reranker.score(query, docs);
    const reranked = head.map((c, i) => ({ ...c, score: scores[i] })).sort((a, b) => b.score - a.score);
    return options.rerank.topK ? reranked.slice(0, options.rerank.topK) : reranked;
  }

  /** `chunk_search_result` / `file_search_result` rules put a chunk at `result_index` (lowest index first). */
  private async pin(results: RankedChunk[], pins: Extract<SearchRuleEntry, { result_index: number }>[], stores: StoreRef[], common: CommonParams): Promise<RankedChunk[]> {
    if (!pins.length) return results;
    const out = [...results];
    for (const pin of [...pins].sort((a, b) => a.result_index - b.result_index)) {
      const store = stores.find((s) => s.id === pin.store_id) ?? stores[0];
      const [chunk] = await this.index.getChunks(store.id, pin.file_id, [pin.chunk_index]);
      if (!chunk) continue;
      const found = out.findIndex((c) => c.storeId === store.id && c.fileId === pin.file_id && c.chunkIndex === pin.chunk_index);
      let pinned: RankedChunk;
      if (found >= 0) pinned = out.splice(found, 1)[0];
      else {
        const [file] = (await this.index.scanChunks({ storeId: store.id, fileIds: { include: [pin.file_id] }, limit: 1 })) as ScoredChunk[];
        if (!file) continue;
        pinned = { ...chunk, score: 0, filename: file.filename, externalId: file.externalId, metadata: file.metadata, firstStagePosition: null, firstStageSource: null };
      }
      if (!this.passes(pinned, common.filter)) continue;
      if (common.fileIds?.include && !common.fileIds.include.includes(pinned.fileId)) continue;
      if (common.fileIds?.exclude?.includes(pinned.fileId)) continue;
      const at = Math.min(pin.result_index, out.length);
      // a pinned chunk takes the score of the place it takes, so the list stays ordered
      pinned = { ...pinned, score: Math.max(pinned.score, out[at]?.score ?? out[at - 1]?.score ?? pinned.score) };
      out.splice(at, 0, pinned);
    }
    return out;
  }

  async grep(p: Principal, input: unknown) {
    const t0 = performance.now();
    const problems = new Problems();
    const common = parseCommon(input, {}, problems);
    const b = common.body;
    const pattern = b.pattern;
    if (typeof pattern !== 'string') problems.add(['body', 'pattern'], pattern === undefined ? 'Field required' : 'Input should be a valid string', pattern === undefined ? 'missing' : 'string_type', pattern);
    else if (pattern.length < 1 || pattern.length > 1024) problems.add(['body', 'pattern'], 'String should have 1 to 1024 characters', 'string_too_long', pattern.length);
    let targets: string[] = ['text'];
    if (b.targets !== undefined && b.targets !== null) {
      if (!Array.isArray(b.targets) || !b.targets.length || b.targets.some((t) => t !== 'text' && t !== 'generated')) problems.add(['body', 'targets'], "Input should be a non-empty list of 'text' and 'generated'", 'enum', b.targets);
      else targets = b.targets as string[];
    }
    const bool = (k: string, def: boolean) => {
      if (b[k] === undefined || b[k] === null) return def;
      if (typeof b[k] !== 'boolean') problems.add(['body', k], 'Input should be a valid boolean', 'bool_type', b[k]);
      return b[k] === true;
    };
    const caseSensitive = bool('case_sensitive', false);
    const returnMetadata = bool('return_metadata', true);
    problems.throwIfAny();
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern as string, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
    } catch (err) {
      throw new BadRequestError(`Invalid pattern (RE2 syntax; no backreferences or lookaround): ${(err as Error).message}`);
    }
    const stores = await this.resolveStores(p, common.storeIdentifiers);
    const literals = requiredLiterals(pattern as string);
    const perStore: RankedChunk[][] = [];
    for (const s of stores) {
      const found: RankedChunk[] = [];
      // `generated` targets (OCR text, transcriptions, summaries) do not exist for text chunks
      if (targets.includes('text')) {
        let after = null as { fileId: string; chunkIndex: number } | null;
        for (;;) {
          const batch = await this.index.scanChunks({ storeId: s.id, fileIds: common.fileIds, contains: literals, after, limit: 500 });
          for (const c of batch) {
            if (re.matcher(c.text).find() && this.passes(c, common.filter)) found.push({ ...c, score: 1 });
            if (found.length >= common.topK) break;
          }
          if (found.length >= common.topK || batch.length < 500) break;
          const last = batch[batch.length - 1];
          after = { fileId: last.fileId, chunkIndex: last.chunkIndex };
        }
      }
      perStore.push(found);
    }
    const results = interleave(perStore, common.topK);
    this.activity.record(p.organizationId, {
      type: 'StoreGrepPerformed',
      data: {
        ...this.activityOf(p, stores, common, results, t0),
        pattern: pattern as string,
        caseSensitive,
      },
    });
    return { object: 'list' as const, data: results.map((c) => toScoredChunkResponse(c, returnMetadata)) };
  }

  /** The fields every search activity event has: who asked, over which stores, what came back, how fast. */
  private activityOf(p: Principal, stores: StoreRef[], common: CommonParams, results: RankedChunk[], t0: number) {
    return {
      searchId: this.ids.uuid(),
      organizationId: p.organizationId,
      apiKeyId: p.apiKeyId,
      storeIds: stores.map((s) => s.id),
      filters: common.rawFilters,
      topK: common.topK,
      results: results.map(eventResult),
      searchTimeMs: performance.now() - t0,
      at: this.clock.now().toISOString(),
    };
  }

  /** list-chunks and metadata facets leave a `search` activity entry (not billed as a search). */
  private recordListing(p: Principal, t0: number, stores: StoreRef[], operation: 'list_chunks' | 'metadata_facets', query: string | null, common: CommonParams, results: RankedChunk[]): void {
    this.activity.record(p.organizationId, {
      type: 'StoreChunksListed',
      data: {
        ...this.activityOf(p, stores, common, results, t0),
        operation,
        query,
      },
    });
  }

  async listChunks(p: Principal, input: unknown) {
    const t0 = performance.now();
    const problems = new Problems();
    const common = parseCommon(input, {}, problems);
    const options = parseSearchOptions(problems, common.body.search_options);
    let sort: { target: 'file' | 'chunk'; path: string[]; ascending: boolean } | null = null;
    const sb = common.body.sort_by;
    if (sb !== undefined && sb !== null) {
      const pair = Array.isArray(sb) ? sb : [sb, true];
      if (pair.length !== 2 || typeof pair[0] !== 'string' || !pair[0] || typeof pair[1] !== 'boolean') {
        problems.add(['body', 'sort_by'], 'Input should be a metadata path or a [path, ascending] pair', 'value_error', sb);
      } else {
        let path = pair[0].split('.');
        let target: 'file' | 'chunk' = 'file';
        if (path[0] === 'generated_metadata') [target, path] = ['chunk', path.slice(1)];
        else if (path[0] === 'metadata') path = path.slice(1);
        if (!path.length || path.some((x) => !x)) problems.add(['body', 'sort_by'], 'The path names no field', 'value_error', sb);
        sort = { target, path, ascending: pair[1] };
      }
    }
    problems.throwIfAny();
    const stores = await this.resolveStores(p, common.storeIdentifiers);
    const perStore: RankedChunk[][] = [];
    for (const s of stores) {
      const found: RankedChunk[] = [];
      let after = null as { fileId: string; chunkIndex: number } | null;
      let scanned = 0;
      for (;;) {
        const batch = await this.index.scanChunks({ storeId: s.id, fileIds: common.fileIds, after, limit: 1000 });
        scanned += batch.length;
        for (const c of batch) if (this.passes(c, common.filter)) found.push(c);
        if ((!sort && found.length >= common.topK) || batch.length < 1000) break;
        if (sort && scanned >= this.config.maxSortScan) {
          throw new BadRequestError(`sort_by sorts at most ${this.config.maxSortScan} chunks; narrow the list with filters or file_ids`);
        }
        const last = batch[batch.length - 1];
        after = { fileId: last.fileId, chunkIndex: last.chunkIndex };
      }
      perStore.push(found);
    }
    let results: RankedChunk[];
    if (sort) {
      const value = (c: RankedChunk) => {
        let cur: unknown = sort!.target === 'file' ? c.metadata : c.generatedMetadata;
        for (const k of sort!.path) cur = cur && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[k] : undefined;
        const n = typeof cur === 'number' ? cur : typeof cur === 'string' && cur.trim() !== '' ? Number(cur) : NaN;
        return Number.isFinite(n) ? n : null;
      };
      const all = perStore.flat().map((c) => ({ c, v: value(c) }));
      all.sort((a, b) => (a.v === null ? (b.v === null ? 0 : 1) : b.v === null ? -1 : sort!.ascending ? a.v - b.v : b.v - a.v));
      results = all.slice(0, common.topK).map((x) => x.c);
    } else results = interleave(perStore, common.topK);
    this.recordListing(p, t0, stores, 'list_chunks', null, common, results);
    return { object: 'list' as const, data: results.map((c) => toScoredChunkResponse(c, options.returnMetadata)) };
  }

  async metadataFacets(p: Principal, input: unknown) {
    const t0 = performance.now();
    const problems = new Problems();
    const common = parseCommon(input, {}, problems);
    const b = common.body;
    const query = parseQuery(problems, b.query, false);
    parseSearchOptions(problems, b.search_options);
    const int = (k: string, def: number, min: number, max: number) => {
      const v = b[k];
      if (v === undefined || v === null) return def;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) problems.add(['body', k], `Input should be an integer from ${min} to ${max}`, 'value_error', v);
      return typeof v === 'number' ? v : def;
    };
    const maxFields = int('max_fields', 64, 1, 256);
    const maxValues = int('max_values_per_field', 32, 1, 256);
    const maxFiles = int('max_files', 10_000, 1, 100_000);
    let only: string[] | null = null;
    if (b.facets !== undefined && b.facets !== null) {
      if (!Array.isArray(b.facets) || b.facets.some((x) => typeof x !== 'string')) problems.add(['body', 'facets'], 'Input should be a list of metadata keys', 'list_type', b.facets);
      else only = (b.facets as string[]).map((k) => k.replace(/^metadata\./, ''));
    }
    problems.throwIfAny();
    const stores = await this.resolveStores(p, common.storeIdentifiers);

    // The files to count: those of the query's results, or all files of the stores.
    let files: Array<{ key: string; metadata: unknown }>;
    if (query) {
      const hits = await this.retrieve(stores, query, common, Math.max(common.topK * this.config.candidateFactor, 200));
      const seen = new Map<string, unknown>();
      for (const h of hits) if (!seen.has(`${h.storeId}:${h.fileId}`) && seen.size < maxFiles) seen.set(`${h.storeId}:${h.fileId}`, h.metadata);
      files = [...seen].map(([key, metadata]) => ({ key, metadata }));
    } else {
      const listed = await this.index.listFiles(stores.map((s) => s.id), maxFiles * 2);
      files = listed
        .filter((f) => (!common.fileIds?.include || common.fileIds.include.includes(f.fileId)) && !common.fileIds?.exclude?.includes(f.fileId))
        .filter((f) => !common.filter || evaluateFilter(common.filter, { file: f.metadata }))
        .slice(0, maxFiles)
        .map((f) => ({ key: `${f.storeId}:${f.fileId}`, metadata: f.metadata }));
    }
    const counts = new Map<string, Map<string, number>>();
    const walk = (v: unknown, path: string, seen: Set<string>) => {
      if (v === undefined) return;
      if (Array.isArray(v)) return v.forEach((x) => (typeof x === 'object' && x !== null ? undefined : walk(x, path, seen)));
      if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, path ? `${path}.${k}` : k, seen);
        return;
      }
      if (!path || (only && !only.includes(path))) return;
      const value = typeof v === 'string' ? v : JSON.stringify(v);
      const mark = `${path}\u0000${value}`;
      if (seen.has(mark)) return; // count files, not occurrences
      seen.add(mark);
      const m = counts.get(path) ?? new Map<string, number>();
      m.set(value, (m.get(value) ?? 0) + 1);
      counts.set(path, m);
    };
    for (const f of files) walk(f.metadata, '', new Set());
    const fields = [...counts]
      .map(([k, m]) => ({ k, m, total: [...m.values()].reduce((a, b) => a + b, 0) }))
      .sort((a, b) => b.total - a.total || a.k.localeCompare(b.k))
      .slice(0, maxFields);
    const facets: Record<string, Record<string, number>> = {};
    for (const { k, m } of fields) {
      facets[k] = Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, maxValues));
    }
    this.recordListing(p, t0, stores, 'metadata_facets', query ?? null, common, []);
    return { facets };
  }
}


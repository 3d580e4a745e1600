import { Client, errors } from '@elastic/elasticsearch';
import type { QueryDslQueryContainer } from '@elastic/elasticsearch/lib/api/types';
import { evaluateFilter } from '@larder/kernel';
import {
  ChunkHit,
  ChunkIndex,
  ChunkIndexOp,
  ChunkQuery,
  IndexCheckpoint,
  IndexedChunk,
  IndexedFile,
  ScanQuery,
  ScoredChunk,
} from '../chunk-index.port';
import {
  CHECKPOINTS_INDEX,
  CHUNKS_ANALYSIS,
  CHUNKS_INDEX,
  ChunkDoc,
  chunkId,
  FILES_INDEX,
  FileDoc,
  fileId,
  toChunk,
} from './elasticsearch.mappings';
import { applyOp } from './elasticsearch.writes';
import { queryShortForms } from '../analysis/analyzer';
import { SHORT_FORM_WEIGHT } from '../analysis/short-forms';

export interface ElasticsearchChunkIndexOptions {
  url: string;
  /** Prefix of the three indices (`<prefix>files`, `<prefix>chunks`, `<prefix>checkpoints`). */
  prefix?: string;
  apiKey?: string | null;
}

/**
 * Chunk index on Elasticsearch: a `chunks` index (text with the lexical engine's analysis for BM25, a
 * `wildcard` sub-field for regex/grep, one `dense_vector` field per dimension `vector_<dims>` with
 * cosine HNSW) and a `files` index (metadata, generation), written by the chunk-index projection.
 * Writes are idempotent: every document is indexed with an external version (`external_gte`) equal
 * to the commit position of the batch that wrote it, so a batch repeated after a crash, or an older
 * one arriving late, never overwrites newer state; the checkpoint document is written last.
 * Filters on metadata run on the candidates in process (the same evaluator as the embedded index).
 * This file holds the index's lifecycle, checkpoints and reads; the ops' writes are in elasticsearch.writes.ts.
 */
export class ElasticsearchChunkIndex implements ChunkIndex {
  readonly kind = 'elasticsearch';
  private readonly client: Client;
  private readonly files: string;
  private readonly chunks: string;
  private readonly checkpoints: string;

  constructor(options: ElasticsearchChunkIndexOptions) {
    this.client = new Client({ node: options.url, ...(options.apiKey ? { auth: { apiKey: options.apiKey } } : {}) });
    const p = options.prefix ?? 'larder-';
    this.files = `${p}files`;
    this.chunks = `${p}chunks`;
    this.checkpoints = `${p}checkpoints`;
  }

  async setup(): Promise<void> {
    const create = async (index: string, body: Record<string, unknown>) => {
      if (await this.client.indices.exists({ index })) return;
      try {
        await this.client.indices.create({ index, ...body });
      } catch (err) {
        if (!(err instanceof errors.ResponseError && /resource_already_exists/.test(String(err.message)))) throw err;
      }
    };
    if (await this.analyzedOtherwise()) {
      // chunks analyzed by another release's analysis: dropped with the checkpoints, so the projection replays into new indices
      await this.client.indices.delete({ index: [this.files, this.chunks], ignore_unavailable: true });
      if (await this.client.indices.exists({ index: this.checkpoints }))
        await this.client.deleteByQuery({ index: this.checkpoints, query: { match_all: {} }, refresh: true });
    }
    await create(this.files, FILES_INDEX);
    await create(this.chunks, CHUNKS_INDEX);
    await create(this.checkpoints, CHECKPOINTS_INDEX);
  }

  async readCheckpoint(projection: string): Promise<IndexCheckpoint | null> {
    try {
      const r = await this.client.get<{ version: number; commit: string; prepare: string }>({
        index: this.checkpoints,
        id: projection,
      });
      return r._source
        ? {
            version: r._source.version,
            position: { commit: BigInt(r._source.commit), prepare: BigInt(r._source.prepare) },
          }
        : null;
    } catch (err) {
      if (err instanceof errors.ResponseError && err.statusCode === 404) return null;
      throw err;
    }
  }

  async write(ops: ChunkIndexOp[], cp: { projection: string } & IndexCheckpoint): Promise<void> {
    const version = Number(cp.position.commit);
    const v = { version, version_type: 'external_gte' as const };
    const target = { client: this.client, files: this.files, chunks: this.chunks };
    // Ops are applied in order; each reads the file document it depends on in real time (GET is realtime).
    for (const op of ops) await applyOp(target, op, v);
    await this.client.indices.refresh({ index: [this.files, this.chunks] });
    await this.client.index({
      index: this.checkpoints,
      id: cp.projection,
      document: { version: cp.version, commit: cp.position.commit.toString(), prepare: cp.position.prepare.toString() },
      refresh: true,
    });
  }

  /** Whether the chunks index exists and was made with another analysis than CHUNKS_ANALYSIS (before it: none named). */
  private async analyzedOtherwise(): Promise<boolean> {
    if (!(await this.client.indices.exists({ index: this.chunks }))) return false;
    const mapping = await this.client.indices.getMapping({ index: this.chunks });
    const meta = Object.values(mapping)[0]?.mappings?._meta as { analysis?: number } | undefined;
    return meta?.analysis !== CHUNKS_ANALYSIS.version;
  }

  async reset(projection: string, version: number): Promise<void> {
    void version;
    await this.client.indices.delete({ index: [this.files, this.chunks], ignore_unavailable: true });
    await this.client.delete({ index: this.checkpoints, id: projection, refresh: true }).catch((err: unknown) => {
      if (!(err instanceof errors.ResponseError && err.statusCode === 404)) throw err;
    });
    await this.setup();
  }

  async getChunks(storeId: string, fid: string, indices?: number[] | null): Promise<IndexedChunk[]> {
    const filter: QueryDslQueryContainer[] = [{ term: { store_id: storeId } }, { term: { file_id: fid } }];
    if (indices) filter.push({ terms: { chunk_index: indices } });
    const out: IndexedChunk[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const r = await this.client.search<ChunkDoc>({
        index: this.chunks,
        query: { bool: { filter } },
        sort: [{ chunk_index: 'asc' }],
        size: 1000,
        _source: { excludes: ['vector_*'] },
        ...(after ? { search_after: after as never[] } : {}),
      });
      const hits = r.hits.hits;
      for (const h of hits) out.push(toChunk(h._source!));
      if (hits.length < 1000) return out;
      after = hits[hits.length - 1].sort;
    }
  }

  private candidateFilter(q: ChunkQuery): QueryDslQueryContainer {
    const filter: QueryDslQueryContainer[] = [{ terms: { store_id: q.storeIds } }];
    if (q.fileIds?.include) filter.push({ terms: { file_id: q.fileIds.include } });
    const mustNot: QueryDslQueryContainer[] = q.fileIds?.exclude?.length
      ? [{ terms: { file_id: q.fileIds.exclude } }]
      : [];
    return { bool: { filter, must_not: mustNot } };
  }

  private async scored(
    hits: Array<{ _source?: ChunkDoc; _score?: number | null }>,
    q: ChunkQuery,
    score: (s: number) => number,
  ): Promise<ScoredChunk[]> {
    if (!hits.length) return [];
    const fileIds = [...new Set(hits.map((h) => fileId(h._source!.store_id, h._source!.file_id)))];
    const files = await this.client.mget<FileDoc>({ index: this.files, ids: fileIds });
    const byId = new Map<string, FileDoc>();
    for (const d of files.docs) if ('found' in d && d.found && d._source) byId.set(d._id, d._source);
    const out: ScoredChunk[] = [];
    for (const h of hits) {
      const c = h._source!;
      const f = byId.get(fileId(c.store_id, c.file_id));
      if (!f || f.generation !== c.generation) continue;
      const hit: ScoredChunk = {
        ...toChunk(c),
        score: score(h._score ?? 0),
        filename: f.filename,
        externalId: f.external_id,
        metadata: f.metadata,
      };
      if (q.filter && !evaluateFilter(q.filter, { file: hit.metadata, chunk: hit.generatedMetadata })) continue;
      out.push(hit);
      if (out.length === q.topK) break;
    }
    return out;
  }

  async searchLexical(q: ChunkQuery): Promise<ChunkHit[]> {
    const text = (q.text ?? '').trim();
    if (!text || !q.storeIds.length) return [];
    const size = q.filter ? Math.max(q.topK * 20, 1000) : q.topK;
    const shortForms = queryShortForms(text, true);
    const r = await this.client.search<ChunkDoc>({
      index: this.chunks,
      size,
      _source: { excludes: ['vector_*'] },
      query: {
        bool: {
          // the query's words, or the other forms of its short-form groups (`str` beside "string"), weighted as the embedded engine weights them
          should: [
            { match: { text: { query: text, operator: 'or' } } },
            ...(shortForms.length
              ? [
                  {
                    match: { text: { query: shortForms.join(' '), operator: 'or' as const, boost: SHORT_FORM_WEIGHT } },
                  },
                ]
              : []),
          ],
          minimum_should_match: 1,
          filter: [this.candidateFilter(q)],
        },
      },
      sort: [{ _score: { order: 'desc' } }, { chunk_index: { order: 'asc' } }],
      track_scores: true,
    });
    return (await this.scored(r.hits.hits, q, (s) => s)).map(toHit);
  }

  async searchDense(q: ChunkQuery): Promise<ChunkHit[]> {
    if (!q.vector || !q.storeIds.length) return [];
    const k = q.filter ? Math.max(q.topK * 20, 1000) : q.topK;
    const field = `vector_${q.vector.length}`;
    let r;
    try {
      r = await this.client.search<ChunkDoc>({
        index: this.chunks,
        size: k,
        _source: { excludes: ['vector_*'] },
        knn: {
          field,
          query_vector: Array.from(q.vector),
          k,
          num_candidates: Math.min(10_000, Math.max(100, k * 4)),
          filter: q.model
            ? { bool: { filter: [this.candidateFilter(q), { term: { model: q.model } }] } }
            : this.candidateFilter(q),
        },
      });
    } catch (err) {
      // no chunk has a vector of this dimension yet
      if (
        err instanceof errors.ResponseError &&
        /field \[vector_\d+\] does not exist|failed to create query/.test(JSON.stringify(err.body))
      )
        return [];
      throw err;
    }
    // Elasticsearch reports cosine as (1 + cos) / 2
    return (await this.scored(r.hits.hits, q, (s) => 2 * s - 1)).map(toHit);
  }

  async hydrate(hits: ChunkHit[]): Promise<ScoredChunk[]> {
    if (!hits.length) return [];
    const chunks = await this.client.mget<ChunkDoc>({
      index: this.chunks,
      ids: hits.map((h) => chunkId(h.storeId, h.fileId, h.chunkIndex)),
      _source_excludes: ['vector_*'],
    });
    const fileIds = [...new Set(hits.map((h) => fileId(h.storeId, h.fileId)))];
    const files = await this.client.mget<FileDoc>({ index: this.files, ids: fileIds });
    const byId = new Map<string, FileDoc>();
    for (const d of files.docs) if ('found' in d && d.found && d._source) byId.set(d._id, d._source);
    const out: ScoredChunk[] = [];
    chunks.docs.forEach((d, i) => {
      if (!('found' in d) || !d.found || !d._source) return;
      const c = d._source;
      const f = byId.get(fileId(c.store_id, c.file_id));
      // as a search: a chunk of another generation than its file's is not (or no longer) the file's
      if (!f || f.generation !== c.generation) return;
      out.push({
        ...toChunk(c),
        score: hits[i].score,
        filename: f.filename,
        externalId: f.external_id,
        metadata: f.metadata,
      });
    });
    return out;
  }

  async scanChunks(q: ScanQuery): Promise<ScoredChunk[]> {
    const filter: QueryDslQueryContainer[] = [{ term: { store_id: q.storeId } }];
    if (q.fileIds?.include) filter.push({ terms: { file_id: q.fileIds.include } });
    for (const lit of (q.contains ?? []).filter((l) => [...l].length >= 3)) {
      filter.push({
        wildcard: { 'text.raw': { value: `*${lit.replace(/[\\*?]/g, (c) => `\\${c}`)}*`, case_insensitive: true } },
      });
    }
    const mustNot: QueryDslQueryContainer[] = q.fileIds?.exclude?.length
      ? [{ terms: { file_id: q.fileIds.exclude } }]
      : [];
    const r = await this.client.search<ChunkDoc>({
      index: this.chunks,
      size: q.limit,
      _source: { excludes: ['vector_*'] },
      query: { bool: { filter, must_not: mustNot } },
      sort: [{ file_id: { order: 'asc' } }, { chunk_index: { order: 'asc' } }],
      ...(q.after ? { search_after: [q.after.fileId, q.after.chunkIndex] } : {}),
    });
    return this.scored(r.hits.hits, { storeIds: [q.storeId], topK: q.limit }, () => 0);
  }

  async listFiles(storeIds: string[], limit: number): Promise<IndexedFile[]> {
    if (!storeIds.length) return [];
    const out: IndexedFile[] = [];
    let after: unknown[] | undefined;
    while (out.length < limit) {
      const size = Math.min(1000, limit - out.length);
      const r = await this.client.search<FileDoc>({
        index: this.files,
        size,
        query: { terms: { store_id: storeIds } },
        sort: [{ store_id: { order: 'asc' } }, { file_id: { order: 'asc' } }],
        ...(after ? { search_after: after as never[] } : {}),
      });
      for (const h of r.hits.hits) {
        const f = h._source!;
        out.push({
          storeId: f.store_id,
          fileId: f.file_id,
          organizationId: f.organization_id,
          filename: f.filename,
          externalId: f.external_id,
          metadata: f.metadata,
          generation: f.generation,
        });
      }
      if (r.hits.hits.length < size) break;
      after = r.hits.hits[r.hits.hits.length - 1].sort;
    }
    return out;
  }

  async count(storeId?: string): Promise<{ files: number; chunks: number; vectors: number }> {
    const q = storeId ? { term: { store_id: storeId } } : { match_all: {} };
    const files = (await this.client.count({ index: this.files, query: q })).count;
    const chunks = (await this.client.count({ index: this.chunks, query: q })).count;
    const vectors = (
      await this.client.count({ index: this.chunks, query: { bool: { filter: [q, { exists: { field: 'model' } }] } } })
    ).count;
    return { files, chunks, vectors };
  }

  /** Drops the indices (tests). */
  async destroy(): Promise<void> {
    await this.client.indices.delete({ index: [this.files, this.chunks, this.checkpoints], ignore_unavailable: true });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

const toHit = (c: ScoredChunk): ChunkHit => ({
  storeId: c.storeId,
  fileId: c.fileId,
  chunkIndex: c.chunkIndex,
  score: c.score,
});

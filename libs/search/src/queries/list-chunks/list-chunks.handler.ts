import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BadRequestError } from '@larder/kernel';
import { CHUNK_INDEX, ChunkIndex, toScoredChunkResponse } from '@larder/chunk-index';
import { passesFilter, RankedChunk } from '../../retrieval';
import { StoreAccess } from '../../store-access';
import { SearchActivity } from '../../search-activity';
import { interleave, SEARCH_CONFIG, SearchConfig } from '../../search.config';
import { ChunkSort, metadataValue, numericValue } from '../../chunk-sort';
import { ListChunksQuery } from './list-chunks.query';

export type ListChunksResponse = { object: 'list'; data: ReturnType<typeof toScoredChunkResponse>[] };

/** A number at the sort path of a chunk's (or its file's) metadata; null when there is none. */
const sortValue = (c: RankedChunk, sort: ChunkSort): number | null => numericValue(metadataValue(c, sort));

/** Chunks in index order, stores interleaved, or sorted numerically by a metadata path. Leaves a `search` activity entry, not billed. */
@QueryHandler(ListChunksQuery)
export class ListChunksHandler implements IQueryHandler<ListChunksQuery, ListChunksResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly activity: SearchActivity,
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
  ) {}

  async execute({ principal: p, params }: ListChunksQuery): Promise<ListChunksResponse> {
    const t0 = performance.now();
    const { sort } = params;
    const stores = await this.access.resolveStores(p, params.storeIdentifiers);
    const perStore: RankedChunk[][] = [];
    for (const s of stores) {
      const found: RankedChunk[] = [];
      let after = null as { fileId: string; chunkIndex: number } | null;
      let scanned = 0;
      for (;;) {
        const batch = await this.index.scanChunks({ storeId: s.id, fileIds: params.fileIds, after, limit: 1000 });
        scanned += batch.length;
        for (const c of batch) if (passesFilter(c, params.filter)) found.push(c);
        if ((!sort && found.length >= params.topK) || batch.length < 1000) break;
        if (sort && scanned >= this.config.maxSortScan) {
          throw new BadRequestError(
            `sort_by sorts at most ${this.config.maxSortScan} chunks; narrow the list with filters or file_ids`,
          );
        }
        const last = batch[batch.length - 1];
        after = { fileId: last.fileId, chunkIndex: last.chunkIndex };
      }
      perStore.push(found);
    }
    let results: RankedChunk[];
    if (sort) {
      const all = perStore.flat().map((c) => ({ c, v: sortValue(c, sort) }));
      all.sort((a, b) =>
        a.v === null ? (b.v === null ? 0 : 1) : b.v === null ? -1 : sort.ascending ? a.v - b.v : b.v - a.v,
      );
      results = all.slice(0, params.topK).map((x) => x.c);
    } else results = interleave(perStore, params.topK);
    this.activity.record(p.organizationId, {
      type: 'StoreChunksListed',
      data: { ...this.activity.common(p, stores, params, results, t0), operation: 'list_chunks', query: null },
    });
    return { object: 'list', data: results.map((c) => toScoredChunkResponse(c, params.options.returnMetadata)) };
  }
}

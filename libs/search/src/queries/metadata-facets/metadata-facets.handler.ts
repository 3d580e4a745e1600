import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { evaluateFilter } from '@larder/kernel';
import { CHUNK_INDEX, ChunkIndex } from '@larder/chunk-index';
import { Retrieval } from '../../retrieval';
import { candidateWindow } from '../../search.config';
import { StoreAccess } from '../../store-access';
import { SearchActivity } from '../../search-activity';
import { MetadataFacetsQuery } from './metadata-facets.query';

export type MetadataFacetsResponse = { facets: Record<string, Record<string, number>> };

/** Per metadata field, how many of the matching files have each value. Leaves a `search` activity entry, not billed. */
@QueryHandler(MetadataFacetsQuery)
export class MetadataFacetsHandler implements IQueryHandler<MetadataFacetsQuery, MetadataFacetsResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly retrieval: Retrieval,
    private readonly activity: SearchActivity,
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
  ) {}

  async execute({ principal: p, params }: MetadataFacetsQuery): Promise<MetadataFacetsResponse> {
    const t0 = performance.now();
    const { query, maxFiles, only } = params;
    const stores = await this.access.resolveStores(p, params.storeIdentifiers);

    // The files to count: those of the query's results, or all files of the stores.
    let files: Array<{ key: string; metadata: unknown }>;
    if (query) {
      const hits = await this.retrieval.retrieve(
        stores,
        query,
        params,
        candidateWindow(params.topK, this.retrieval.config.candidateFactor, 200),
      );
      const seen = new Map<string, unknown>();
      for (const h of hits)
        if (!seen.has(`${h.storeId}:${h.fileId}`) && seen.size < maxFiles)
          seen.set(`${h.storeId}:${h.fileId}`, h.metadata);
      files = [...seen].map(([key, metadata]) => ({ key, metadata }));
    } else {
      const listed = await this.index.listFiles(
        stores.map((s) => s.id),
        maxFiles * 2,
      );
      files = listed
        .filter(
          (f) =>
            (!params.fileIds?.include || params.fileIds.include.includes(f.fileId)) &&
            !params.fileIds?.exclude?.includes(f.fileId),
        )
        .filter((f) => !params.filter || evaluateFilter(params.filter, { file: f.metadata }))
        .slice(0, maxFiles)
        .map((f) => ({ key: `${f.storeId}:${f.fileId}`, metadata: f.metadata }));
    }
    const counts = new Map<string, Map<string, number>>();
    const walk = (v: unknown, path: string, seen: Set<string>) => {
      if (v === undefined) return;
      if (Array.isArray(v))
        return v.forEach((x) => (typeof x === 'object' && x !== null ? undefined : walk(x, path, seen)));
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
      .slice(0, params.maxFields);
    const facets: Record<string, Record<string, number>> = {};
    for (const { k, m } of fields) {
      facets[k] = Object.fromEntries(
        [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, params.maxValues),
      );
    }
    this.activity.record(p.organizationId, {
      type: 'StoreChunksListed',
      data: { ...this.activity.common(p, stores, params, [], t0), operation: 'metadata_facets', query: query ?? null },
    });
    return { facets };
  }
}

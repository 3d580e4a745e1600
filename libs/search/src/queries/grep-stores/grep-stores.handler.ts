import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { RE2JS } from 're2js';
import { BadRequestError } from '@larder/kernel';
import { CHUNK_INDEX, ChunkIndex, toScoredChunkResponse } from '@larder/chunk-index';
import { passesFilter, RankedChunk } from '../../retrieval';
import { StoreAccess } from '../../store-access';
import { SearchActivity } from '../../search-activity';
import { SearchAdmission } from '../../search-admission';
import { requiredLiterals } from '../../grep-literals';
import { interleave } from '../../search.config';
import { GrepStoresQuery } from './grep-stores.query';

export type GrepStoresResponse = { object: 'list'; data: ReturnType<typeof toScoredChunkResponse>[] };

/** RE2 over chunk text, pre-filtered by the pattern's required literals; stores interleaved in request order. */
@QueryHandler(GrepStoresQuery)
export class GrepStoresHandler implements IQueryHandler<GrepStoresQuery, GrepStoresResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly activity: SearchActivity,
    @Inject(CHUNK_INDEX) private readonly index: ChunkIndex,
    private readonly admission: SearchAdmission,
  ) {}

  /** In its turn (search-admission.ts): a full queue is a 503. */
  execute(query: GrepStoresQuery): Promise<GrepStoresResponse> {
    return this.admission.run(() => this.grep(query));
  }

  private async grep({ principal: p, params }: GrepStoresQuery): Promise<GrepStoresResponse> {
    const t0 = performance.now();
    const { pattern, caseSensitive } = params;
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
    } catch (err) {
      throw new BadRequestError(
        `Invalid pattern (RE2 syntax; no backreferences or lookaround): ${(err as Error).message}`,
      );
    }
    const stores = await this.access.resolveStores(p, params.storeIdentifiers);
    const literals = requiredLiterals(pattern);
    const perStore: RankedChunk[][] = [];
    for (const s of stores) {
      const found: RankedChunk[] = [];
      // `text` matches the text of text chunks, `generated` what ingestion derived: OCR text and transcripts
      const wanted = (c: { type: string }) => params.targets.includes(c.type === 'text' ? 'text' : 'generated');
      if (params.targets.length) {
        let after = null as { fileId: string; chunkIndex: number } | null;
        for (;;) {
          const batch = await this.index.scanChunks({
            storeId: s.id,
            fileIds: params.fileIds,
            contains: literals,
            after,
            limit: 500,
          });
          for (const c of batch) {
            if (wanted(c) && re.matcher(c.text).find() && passesFilter(c, params.filter))
              found.push({ ...c, score: 1 });
            if (found.length >= params.topK) break;
          }
          if (found.length >= params.topK || batch.length < 500) break;
          const last = batch[batch.length - 1];
          after = { fileId: last.fileId, chunkIndex: last.chunkIndex };
        }
      }
      perStore.push(found);
    }
    const results = interleave(perStore, params.topK);
    this.activity.record(p.organizationId, {
      type: 'StoreGrepPerformed',
      data: { ...this.activity.common(p, stores, params, results, t0), pattern, caseSensitive },
    });
    return { object: 'list', data: results.map((c) => toScoredChunkResponse(c, params.returnMetadata)) };
  }
}

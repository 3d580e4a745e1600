import { Module } from '@nestjs/common';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { StoreSearchService } from './store-search.service';
import { SearchActivity } from './search-activity';
import { SearchRulesWriter } from './rules/search-rules.writer';
import { StoreSearchHttpController } from './http/store-search.http.controller';
import { SearchRulesHttpController } from './http/search-rules.http.controller';

export { SEARCH_CONFIG } from './store-search.service';
export type { SearchConfig } from './store-search.service';
export { RERANKER } from './reranker.port';
export type { Reranker } from './reranker.port';

/** Search over stores, search rules, grep, list-chunks and facets (contract §14–§16.3). */
@Module({
  controllers: [StoreSearchHttpController, SearchRulesHttpController],
  providers: [StoresReader, SearchRulesReader, StoreSearchService, SearchActivity, SearchRulesWriter],
  exports: [StoreSearchService],
})
export class SearchModule {}

import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../../search-scope';
import { SearchVectorStoreQuery } from './search-vector-store.query';
import { SearchVectorStoreRequestDto } from './search-vector-store.request.dto';
import type { VectorStoreSearchPage } from './search-vector-store.handler';

@Controller('v1/vector_stores')
export class SearchVectorStoreHttpController {
  constructor(private readonly queries: QueryBus) {}

  /** `search` (or `read`) on the store, checked when the search resolves it, as `POST /v1/stores/search` does. */
  @Post(':vector_store_id/search')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  search(
    @CurrentPrincipal() p: Principal,
    @Param('vector_store_id') id: string,
    @Body() body: SearchVectorStoreRequestDto,
  ): Promise<VectorStoreSearchPage> {
    return this.queries.execute(new SearchVectorStoreQuery(p, id, body, body.filter()));
  }
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { MetadataFacetsQuery } from './metadata-facets.query';
import { MetadataFacetsRequestDto } from './metadata-facets.request.dto';
import type { MetadataFacetsResponse } from './metadata-facets.handler';

@Controller('v1/stores')
export class MetadataFacetsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('metadata-facets')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  facets(@CurrentPrincipal() p: Principal, @Body() body: MetadataFacetsRequestDto): Promise<MetadataFacetsResponse> {
    return this.queries.execute(new MetadataFacetsQuery(p, body.params()));
  }
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, RequireScope } from '@larder/kernel';
import { SEARCH_SCOPE } from '../../search-scope';
import { ListChunksQuery } from './list-chunks.query';
import { ListChunksRequestDto } from './list-chunks.request.dto';
import type { ListChunksResponse } from './list-chunks.handler';

@Controller('v1/stores')
export class ListChunksHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('list-chunks')
  @HttpCode(200)
  @RequireScope(SEARCH_SCOPE)
  listChunks(@CurrentPrincipal() p: Principal, @Body() body: ListChunksRequestDto): Promise<ListChunksResponse> {
    return this.queries.execute(new ListChunksQuery(p, body.params()));
  }
}

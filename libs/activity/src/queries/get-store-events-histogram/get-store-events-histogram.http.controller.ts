import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentPrincipal, Principal, StoreRoute } from '@larder/kernel';
import { GetStoreEventsHistogramQuery } from './get-store-events-histogram.query';
import { GetStoreEventsHistogramRequestDto } from './get-store-events-histogram.request.dto';
import type { StoreHistogramResponse } from './get-store-events-histogram.handler';

@Controller('v1/stores/:store_identifier/events')
export class GetStoreEventsHistogramHttpController {
  constructor(private readonly queries: QueryBus) {}

  @StoreRoute('read', Post('histogram'), HttpCode(200))
  histogram(
    @CurrentPrincipal() p: Principal,
    @Param('store_identifier') sid: string,
    @Body() body: GetStoreEventsHistogramRequestDto,
  ): Promise<StoreHistogramResponse> {
    return this.queries.execute(new GetStoreEventsHistogramQuery(p, sid, body));
  }
}

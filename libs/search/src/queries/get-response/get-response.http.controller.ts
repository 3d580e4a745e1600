import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentPrincipal, Principal, QueryInt, RequireScope } from '@larder/kernel';
import { CHAT_SCOPE } from '../../commands/create-chat-completion/create-chat-completion.http.controller';
import { GetResponseQuery } from './get-response.query';
import type { InputItemList } from './get-response.handler';

/** `GET /v1/responses/{id}/input_items`: OpenAI's cursor parameters. */
export class ListInputItemsQueryDto {
  @IsOptional() @IsString() @MaxLength(300) after?: string;
  @IsOptional() @IsString() @MaxLength(300) before?: string;
  @QueryInt(1, 100) limit?: number;
  @IsOptional() @IsIn(['asc', 'desc']) order?: 'asc' | 'desc';
  @IsOptional() include?: unknown;
}

/** Stored responses (`store`, the default): retrieve one, list its input items. */
@Controller('v1/responses')
export class GetResponseHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':response_id')
  @RequireScope(CHAT_SCOPE)
  get(@CurrentPrincipal() p: Principal, @Param('response_id') id: string): Promise<Record<string, unknown>> {
    return this.queries.execute(new GetResponseQuery(p, id));
  }

  @Get(':response_id/input_items')
  @RequireScope(CHAT_SCOPE)
  inputItems(
    @CurrentPrincipal() p: Principal,
    @Param('response_id') id: string,
    @Query() q: ListInputItemsQueryDto,
  ): Promise<InputItemList> {
    return this.queries.execute(
      new GetResponseQuery(p, id, {
        after: q.after ?? null,
        before: q.before ?? null,
        limit: q.limit ?? 20,
        order: q.order ?? 'desc',
      }),
    );
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, CursorPage, paginateByCursor, Principal, RequireScope } from '@larder/kernel';
import { StoresReader, StoreRow } from '@larder/projections/stores/stores.reader';
import { StoresWriter } from '../stores.writer';
import { StoreResponse, toStoreResponse } from '../store.response';
import { CopyStoreRequestDto, CreateStoreRequestDto, ListStoresRequestDto, UpdateStoreRequestDto } from './stores.request.dto';

@Controller('v1/stores')
export class StoresHttpController {
  constructor(
    private readonly writer: StoresWriter,
    private readonly reader: StoresReader,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'store' })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateStoreRequestDto): Promise<StoreResponse> {
    return toStoreResponse(await this.writer.create(p.organizationId, p.apiKeyId, body));
  }

  /** Newest first; with `q`, best fuzzy matches on name and description first. */
  @Get()
  @RequireScope({ method: 'list', resourceType: 'store' })
  async list(@CurrentPrincipal() p: Principal, @Query() query: ListStoresRequestDto): Promise<CursorPage<StoreResponse>> {
    const org = p.organizationId;
    const q = query.q?.trim();
    let page: CursorPage<StoreRow & { rank?: number }>;
    if (q) {
      page = await paginateByCursor<StoreRow & { rank?: number }>(
        query,
        (s) => ({ r: s.rank! }),
        async ({ cursor, direction, take }) => {
          const at = cursor ? Number(cursor.r) : direction === 'forward' ? -1 : 0;
          const start = direction === 'forward' ? at + 1 : Math.max(0, at - take);
          const count = direction === 'forward' ? take : at - start;
          const rows = (await this.reader.search(org, q, start, count)).map((s, i) => Object.assign(s, { rank: start + i }));
          return direction === 'forward' ? rows : rows.reverse();
        },
        () => this.reader.count(org, q),
      );
    } else {
      page = await paginateByCursor<StoreRow>(
        query,
        (s) => ({ c: s.createdAt.toISOString(), id: s.id }),
        ({ cursor, direction, take }) => this.reader.page(org, cursor as { c: string; id: string } | null, direction, take),
        () => this.reader.count(org),
      );
    }
    return { ...page, data: page.data.map(toStoreResponse) };
  }

  @Get(':store_identifier')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async get(@CurrentPrincipal() p: Principal, @Param('store_identifier') id: string): Promise<StoreResponse> {
    return toStoreResponse(await this.writer.resolve(p.organizationId, id));
  }

  @Put(':store_identifier')
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async update(@CurrentPrincipal() p: Principal, @Param('store_identifier') id: string, @Body() body: UpdateStoreRequestDto): Promise<StoreResponse> {
    return toStoreResponse(await this.writer.update(p.organizationId, p.apiKeyId, id, body));
  }

  @Delete(':store_identifier')
  @RequireScope({ method: 'delete', resourceType: 'store', resourceIdParam: 'store_identifier' })
  remove(@CurrentPrincipal() p: Principal, @Param('store_identifier') id: string) {
    return this.writer.remove(p.organizationId, p.apiKeyId, id);
  }

  @Post(':store_identifier/copy')
  @HttpCode(201)
  @RequireScope({ method: 'create', resourceType: 'store' })
  async copy(@CurrentPrincipal() p: Principal, @Param('store_identifier') id: string, @Body() body: CopyStoreRequestDto): Promise<StoreResponse> {
    return toStoreResponse(await this.writer.copy(p.organizationId, p.apiKeyId, id, body));
  }
}

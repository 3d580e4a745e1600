import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CurrentPrincipal, NotFoundError, Principal, RequireScope } from '@larder/kernel';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { SearchRulesWriter, toSearchRuleResponse } from '../rules/search-rules.writer';

/** Search rules (contract §14). There is no list operation; `DELETE …/specific` carries a JSON body. */
@Controller('v1/stores/:store_identifier/rules')
export class SearchRulesHttpController {
  constructor(
    private readonly writer: SearchRulesWriter,
    private readonly stores: StoresReader,
  ) {}

  private async store(p: Principal, identifier: string): Promise<string> {
    const s = await this.stores.get(p.organizationId, identifier);
    if (!s) throw new NotFoundError(`Store ${identifier} not found`);
    return s.id;
  }

  @Post()
  @HttpCode(201)
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async create(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Body() body: unknown) {
    return toSearchRuleResponse(await this.writer.create(p.organizationId, p.apiKeyId, await this.store(p, sid), body));
  }

  @Get(':rule_id')
  @RequireScope({ method: 'read', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async get(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('rule_id') id: string) {
    return toSearchRuleResponse(await this.writer.get(p.organizationId, await this.store(p, sid), id));
  }

  @Put(':rule_id')
  @RequireScope({ method: 'write', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async update(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('rule_id') id: string, @Body() body: unknown) {
    return toSearchRuleResponse(await this.writer.update(p.organizationId, p.apiKeyId, await this.store(p, sid), id, body));
  }

  @Delete(':rule_id')
  @RequireScope({ method: 'delete', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async remove(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('rule_id') id: string) {
    await this.writer.remove(p.organizationId, p.apiKeyId, await this.store(p, sid), id);
    return { deleted: true, object: 'search_rule.deleted' as const };
  }

  @Delete(':rule_id/specific')
  @RequireScope({ method: 'delete', resourceType: 'store', resourceIdParam: 'store_identifier' })
  async removeSpecific(@CurrentPrincipal() p: Principal, @Param('store_identifier') sid: string, @Param('rule_id') id: string, @Body() body: unknown) {
    const r = await this.writer.removeEntry(p.organizationId, p.apiKeyId, await this.store(p, sid), id, body);
    return { id, object: 'search_rule' as const, deleted_rule: r.deleted, remaining_rules: r.remaining };
  }
}

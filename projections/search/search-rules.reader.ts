import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SearchRuleEntry } from '@larder/search/rules/events';
import { SEARCH_RULES_TABLE as T } from './search-rules.tables';

export { queryKey } from './search-rules.tables';

export interface SearchRuleRow {
  id: string;
  organizationId: string;
  storeId: string;
  query: string;
  rules: SearchRuleEntry[];
  createdAt: Date;
  updatedAt: Date;
}

const toRow = (r: Record<string, unknown>): SearchRuleRow => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  storeId: r.store_id as string,
  query: r.query as string,
  rules: r.rules as SearchRuleEntry[],
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
});

@Injectable()
export class SearchRulesReader {
  constructor(private readonly ds: DataSource) {}

  async get(organizationId: string, storeId: string, id: string): Promise<SearchRuleRow | null> {
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT * FROM ${T} WHERE id = $1 AND organization_id = $2 AND store_id = $3`,
      [id, organizationId, storeId],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Every rule of these stores with its normalised trigger, oldest first (for an in-memory match). */
  async allOfStores(
    organizationId: string,
    storeIds: string[],
  ): Promise<Array<{ storeId: string; queryKey: string; rules: SearchRuleEntry[] }>> {
    if (!storeIds.length) return [];
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT store_id, query_key, rules FROM ${T} WHERE organization_id = $1 AND store_id = ANY($2::uuid[]) ORDER BY created_at, id`,
      [organizationId, storeIds],
    );
    return rows.map((r) => ({
      storeId: r.store_id as string,
      queryKey: r.query_key as string,
      rules: r.rules as SearchRuleEntry[],
    }));
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SearchRuleEntry } from '@larder/search/rules/events';
import { STORES_TABLE } from '../stores/stores.projection';
import { queryKey, SEARCH_RULES_TABLE as T } from './search-rules.projection';

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
    const rows = await this.ds.query(`SELECT * FROM ${T} WHERE id = $1 AND organization_id = $2 AND store_id = $3`, [id, organizationId, storeId]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  /**
   * One round trip for a search: each identifier (id or name, in request order) resolved to a store
   * of the organization (null when none), with the rules of that store triggered by `query`.
   */
  async resolveForSearch(organizationId: string, identifiers: string[], query: string | null): Promise<Array<{ identifier: string; store: { id: string; name: string } | null; rules: SearchRuleEntry[][] }>> {
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `WITH ids AS (SELECT ident, ord FROM unnest($2::text[]) WITH ORDINALITY AS t(ident, ord)),
            s AS (SELECT DISTINCT ON (ids.ord) ids.ord, ids.ident, st.id, st.name FROM ids
                    LEFT JOIN ${STORES_TABLE} st ON st.organization_id = $1
                     AND (st.name = ids.ident OR st.id = (CASE WHEN ids.ident ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN ids.ident::uuid END))
                   ORDER BY ids.ord, (st.name = ids.ident) ASC)
       SELECT s.ord, s.ident, s.id, s.name,
              CASE WHEN $3::text IS NULL OR s.id IS NULL THEN NULL ELSE
                (SELECT json_agg(r.rules ORDER BY r.created_at, r.id) FROM ${T} r WHERE r.store_id = s.id AND r.query_key = $3) END AS rules
         FROM s ORDER BY s.ord`,
      [organizationId, identifiers, query === null ? null : queryKey(query)],
    );
    return rows.map((r) => ({
      identifier: r.ident as string,
      store: r.id ? { id: r.id as string, name: r.name as string } : null,
      rules: (r.rules as SearchRuleEntry[][] | null) ?? [],
    }));
  }

  /** Every rule of these stores with its normalised trigger, oldest first (for an in-memory match). */
  async allOfStores(organizationId: string, storeIds: string[]): Promise<Array<{ storeId: string; queryKey: string; rules: SearchRuleEntry[] }>> {
    if (!storeIds.length) return [];
    const rows = await this.ds.query(`SELECT store_id, query_key, rules FROM ${T} WHERE organization_id = $1 AND store_id = ANY($2::uuid[]) ORDER BY created_at, id`, [organizationId, storeIds]);
    return rows.map((r: Record<string, unknown>) => ({ storeId: r.store_id as string, queryKey: r.query_key as string, rules: r.rules as SearchRuleEntry[] }));
  }

  /** The rules of these stores triggered by `query`, oldest first. */
  async matching(organizationId: string, storeIds: string[], query: string): Promise<SearchRuleRow[]> {
    if (!storeIds.length) return [];
    const rows = await this.ds.query(`SELECT * FROM ${T} WHERE organization_id = $1 AND store_id = ANY($2::uuid[]) AND query_key = $3 ORDER BY created_at, id`, [
      organizationId,
      storeIds,
      queryKey(query),
    ]);
    return rows.map(toRow);
  }
}

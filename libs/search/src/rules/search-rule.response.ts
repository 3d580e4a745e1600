import type { SearchRuleRow } from '@larder/projections/search/search-rules.reader';

/** A search rule as answered: a read-model row, or the decided state while the read model is late. */
export type SearchRuleView = Pick<SearchRuleRow, 'id' | 'storeId' | 'query' | 'rules' | 'createdAt' | 'updatedAt'>;

export function toSearchRuleResponse(r: SearchRuleView) {
  return {
    id: r.id,
    object: 'search_rule' as const,
    query: r.query,
    store_id: r.storeId,
    rules: r.rules,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
export type SearchRuleResponse = ReturnType<typeof toSearchRuleResponse>;

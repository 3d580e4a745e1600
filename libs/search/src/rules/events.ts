/** A rule of a search rule; `query` and `store_id` repeat the parent's. */
export type SearchRuleEntry =
  | { type: 'query_string'; query: string; store_id: string; substitution: string }
  | { type: 'query_regex'; query: string; store_id: string; pattern: string; replacement: string; flags: RegexFlag[] }
  | {
      type: 'chunk_search_result';
      query: string;
      store_id: string;
      file_id: string;
      chunk_index: number;
      result_index: number;
    }
  | {
      type: 'file_search_result';
      query: string;
      store_id: string;
      file_id: string;
      chunk_index: number;
      result_index: number;
    };

export const REGEX_FLAGS = ['IGNORECASE', 'MULTILINE', 'DOTALL', 'VERBOSE', 'ASCII', 'UNICODE'] as const;
export type RegexFlag = (typeof REGEX_FLAGS)[number];

export interface SearchRuleCreated {
  type: 'SearchRuleCreated';
  data: {
    ruleId: string;
    storeId: string;
    organizationId: string;
    query: string;
    rules: SearchRuleEntry[];
    at: string;
  };
}
export interface SearchRuleUpdated {
  type: 'SearchRuleUpdated';
  data: {
    ruleId: string;
    storeId: string;
    organizationId: string;
    query?: string;
    rules?: SearchRuleEntry[];
    at: string;
  };
}
export interface SearchRuleDeleted {
  type: 'SearchRuleDeleted';
  data: { ruleId: string; storeId: string; organizationId: string; at: string };
}
export type SearchRuleEvent = SearchRuleCreated | SearchRuleUpdated | SearchRuleDeleted;
export const SEARCH_RULE_EVENT_TYPES = ['SearchRuleCreated', 'SearchRuleUpdated', 'SearchRuleDeleted'] as const;

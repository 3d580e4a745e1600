/** Table names of the `search-rules` read model: its projection writes them, its reader queries them (the version suffix moves on a rebuild). */
export const SEARCH_RULES_TABLE = 'search_rules_v1';

/**
 * The `query_key` column: how a search's query meets a rule's (case, surrounding and repeated whitespace do not
 * matter). The projection writes it and searches look rules up by it, so both take it from here.
 */
export function queryKey(q: string): string {
  return q.trim().replace(/\s+/g, ' ').toLowerCase();
}

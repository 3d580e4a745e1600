import type { SearchRuleEntry } from './events';

/** A rule entry as a request gave it: it becomes a `SearchRuleEntry` once its parent (query, store) is known. */
export interface SearchRuleEntryInput {
  toEntry(parent: { query: string; storeId: string }): SearchRuleEntry;
}

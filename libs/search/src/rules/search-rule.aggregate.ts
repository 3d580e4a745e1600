import { ConflictError, Decider, NotFoundError } from '@larder/kernel';
import { SearchRuleEntry, SearchRuleEvent } from './events';

export interface SearchRuleState {
  exists: boolean;
  deleted: boolean;
  storeId: string | null;
  organizationId: string | null;
  query: string;
  rules: SearchRuleEntry[];
}

export type SearchRuleCommand =
  | {
      type: 'CreateSearchRule';
      ruleId: string;
      storeId: string;
      organizationId: string;
      query: string;
      rules: SearchRuleEntry[];
      now: Date;
    }
  | {
      type: 'UpdateSearchRule';
      ruleId: string;
      storeId: string;
      organizationId: string;
      query?: string;
      rules?: SearchRuleEntry[];
      now: Date;
    }
  | { type: 'DeleteSearchRule'; ruleId: string; storeId: string; organizationId: string; now: Date }
  /** Removes one entry equal to `rule`; answers which one and how many are left. */
  | {
      type: 'DeleteSearchRuleEntry';
      ruleId: string;
      storeId: string;
      organizationId: string;
      rule: SearchRuleEntry;
      now: Date;
    };

const same = (a: SearchRuleEntry, b: SearchRuleEntry) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
function canonical(e: SearchRuleEntry): Record<string, unknown> {
  const o = e as unknown as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .filter((k) => k !== 'query' && k !== 'store_id')
      .sort()
      .map((k) => [k, o[k]]),
  );
}

export const searchRuleDecider: Decider<SearchRuleState, SearchRuleCommand, SearchRuleEvent> = {
  initialState: () => ({ exists: false, deleted: false, storeId: null, organizationId: null, query: '', rules: [] }),
  evolve(s, e) {
    switch (e.type) {
      case 'SearchRuleCreated':
        return {
          exists: true,
          deleted: false,
          storeId: e.data.storeId,
          organizationId: e.data.organizationId,
          query: e.data.query,
          rules: e.data.rules,
        };
      case 'SearchRuleUpdated':
        return { ...s, query: e.data.query ?? s.query, rules: e.data.rules ?? s.rules };
      case 'SearchRuleDeleted':
        return { ...s, deleted: true };
    }
  },
  decide(c, s) {
    const at = c.now.toISOString();
    const base = { ruleId: c.ruleId, storeId: c.storeId, organizationId: c.organizationId, at };
    if (c.type === 'CreateSearchRule') {
      if (s.exists) throw new ConflictError(`Search rule ${c.ruleId} already exists`);
      return [{ type: 'SearchRuleCreated', data: { ...base, query: c.query, rules: c.rules } }];
    }
    // another organization's rule does not exist for the caller
    if (!s.exists || s.deleted || s.storeId !== c.storeId || s.organizationId !== c.organizationId)
      throw new NotFoundError(`Search rule ${c.ruleId} not found`);
    switch (c.type) {
      case 'UpdateSearchRule':
        if (c.query === undefined && c.rules === undefined) return [];
        return [
          {
            type: 'SearchRuleUpdated',
            data: {
              ...base,
              ...(c.query !== undefined ? { query: c.query } : {}),
              ...(c.rules !== undefined ? { rules: c.rules } : {}),
            },
          },
        ];
      case 'DeleteSearchRule':
        return [{ type: 'SearchRuleDeleted', data: base }];
      case 'DeleteSearchRuleEntry': {
        const i = s.rules.findIndex((r) => same(r, c.rule));
        if (i < 0) throw new NotFoundError(`Search rule ${c.ruleId} has no such rule`);
        return [{ type: 'SearchRuleUpdated', data: { ...base, rules: s.rules.filter((_, j) => j !== i) } }];
      }
    }
  },
};

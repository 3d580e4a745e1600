import { ConflictError, NotFoundError } from '@larder/kernel';
import { given } from '@larder/kernel/testing';
import { SearchRuleCommand, searchRuleDecider } from './search-rule.aggregate';
import { SearchRuleEntry, SearchRuleEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const STORE = '22222222-2222-4222-8222-222222222222';
const OTHER_STORE = '44444444-4444-4444-8444-444444444444';
const RULE = '33333333-3333-4333-8333-333333333333';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const at = (s: number) => t(s).toISOString();

const rewrite: SearchRuleEntry = { type: 'query_string', query: 'pto', store_id: STORE, substitution: 'paid time off' };
const regex: SearchRuleEntry = {
  type: 'query_regex',
  query: 'pto',
  store_id: STORE,
  pattern: '\\bpto\\b',
  replacement: 'paid time off',
  flags: ['IGNORECASE'],
};
const pin: SearchRuleEntry = {
  type: 'chunk_search_result',
  query: 'pto',
  store_id: STORE,
  file_id: 'f1',
  chunk_index: 2,
  result_index: 0,
};

const base = { ruleId: RULE, storeId: STORE, organizationId: ORG };
const created: SearchRuleEvent = {
  type: 'SearchRuleCreated',
  data: { ...base, query: 'pto', rules: [rewrite, pin], at: at(0) },
};
const deleted: SearchRuleEvent = { type: 'SearchRuleDeleted', data: { ...base, at: at(9) } };

const create: SearchRuleCommand = { type: 'CreateSearchRule', ...base, query: 'pto', rules: [rewrite, pin], now: t(0) };
const update = (
  fields: { query?: string; rules?: SearchRuleEntry[] },
  scope: { storeId?: string; organizationId?: string } = {},
): SearchRuleCommand => ({
  type: 'UpdateSearchRule',
  ...base,
  ...scope,
  ...fields,
  now: t(5),
});
const remove = (scope: { storeId?: string; organizationId?: string } = {}): SearchRuleCommand => ({
  type: 'DeleteSearchRule',
  ...base,
  ...scope,
  now: t(9),
});
const removeEntry = (rule: SearchRuleEntry): SearchRuleCommand => ({
  type: 'DeleteSearchRuleEntry',
  ...base,
  rule,
  now: t(7),
});

describe('search rule decider', () => {
  it('creates a rule', () => {
    const { state } = given(searchRuleDecider).when(create).then(created);
    expect(state).toEqual({
      exists: true,
      deleted: false,
      storeId: STORE,
      organizationId: ORG,
      query: 'pto',
      rules: [rewrite, pin],
    });
  });

  it('refuses to create it twice, also after deletion', () => {
    given(searchRuleDecider, created).when(create).thenThrows(ConflictError, `Search rule ${RULE} already exists`);
    given(searchRuleDecider, created, deleted).when(create).thenThrows(ConflictError);
  });

  it('updates the query, the rules, or both', () => {
    const q = given(searchRuleDecider, created)
      .when(update({ query: 'vacation' }))
      .then({ type: 'SearchRuleUpdated', data: { ...base, query: 'vacation', at: at(5) } });
    expect(q.state).toMatchObject({ query: 'vacation', rules: [rewrite, pin] });
    const r = given(searchRuleDecider, created)
      .when(update({ rules: [regex] }))
      .then({ type: 'SearchRuleUpdated', data: { ...base, rules: [regex], at: at(5) } });
    expect(r.state).toMatchObject({ query: 'pto', rules: [regex] });
    given(searchRuleDecider, created)
      .when(update({ query: 'x', rules: [] }))
      .then({ type: 'SearchRuleUpdated', data: { ...base, query: 'x', rules: [], at: at(5) } });
  });

  it('an update with nothing to change appends nothing', () => {
    given(searchRuleDecider, created).when(update({})).thenNothing();
  });

  it('deletes a rule; it is gone for every command after', () => {
    const { state } = given(searchRuleDecider, created).when(remove()).then(deleted);
    expect(state.deleted).toBe(true);
    for (const c of [remove(), update({ query: 'x' }), removeEntry(rewrite)])
      given(searchRuleDecider, created, deleted).when(c).thenThrows(NotFoundError);
  });

  it('a missing rule, or one of another store, is not found', () => {
    for (const c of [remove(), update({ query: 'x' }), removeEntry(rewrite)])
      given(searchRuleDecider).when(c).thenThrows(NotFoundError, `Search rule ${RULE} not found`);
    for (const c of [remove({ storeId: OTHER_STORE }), update({ query: 'x' }, { storeId: OTHER_STORE })])
      given(searchRuleDecider, created).when(c).thenThrows(NotFoundError);
  });

  it('another organization’s command is not found', () => {
    given(searchRuleDecider, created)
      .when(remove({ organizationId: OTHER_ORG }))
      .thenThrows(NotFoundError);
  });

  describe('DeleteSearchRuleEntry', () => {
    it('removes the first equal entry, whatever its query, store id or key order', () => {
      const reordered = {
        result_index: 0,
        chunk_index: 2,
        file_id: 'f1',
        type: 'chunk_search_result',
        query: 'other',
        store_id: 'elsewhere',
      } as SearchRuleEntry;
      const { state } = given(searchRuleDecider, created)
        .when(removeEntry(reordered))
        .then({ type: 'SearchRuleUpdated', data: { ...base, rules: [rewrite], at: at(7) } });
      expect(state.rules).toEqual([rewrite]);
    });

    it('removes one of two equal entries', () => {
      const twice: SearchRuleEvent = {
        type: 'SearchRuleCreated',
        data: { ...base, query: 'pto', rules: [rewrite, rewrite], at: at(0) },
      };
      given(searchRuleDecider, twice)
        .when(removeEntry(rewrite))
        .then({ type: 'SearchRuleUpdated', data: { ...base, rules: [rewrite], at: at(7) } });
    });

    it('refuses an entry the rule does not have', () => {
      given(searchRuleDecider, created)
        .when(removeEntry(regex))
        .thenThrows(NotFoundError, `Search rule ${RULE} has no such rule`);
      given(searchRuleDecider, created)
        .when(removeEntry({ ...pin, chunk_index: 3 }))
        .thenThrows(NotFoundError);
    });
  });
});

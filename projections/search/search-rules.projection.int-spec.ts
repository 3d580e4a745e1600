import { projectionTestDatabase, TestEventLog } from '@larder/kernel/testing';
import { SearchRuleCommand, searchRuleDecider } from '@larder/search/rules/search-rule.aggregate';
import { SearchRuleEntry } from '@larder/search/rules/events';
import { StoreCommand, storeDecider } from '@larder/stores/store.aggregate';
import { storeStream } from '@larder/stores/streams';
import { streamName } from '@larder/kernel';
import { SearchRulesProjection } from './search-rules.projection';
import { queryKey, SEARCH_RULES_TABLE } from './search-rules.tables';

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const STORE = '5704e000-0000-4000-8000-000000000001';
const DOOMED = '5704e000-0000-4000-8000-000000000002';
const OTHER_STORE = '5704e000-0000-4000-8000-000000000003';
const rule = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
type Cmd<C> = C extends { now: Date } ? Omit<C, 'now'> : never;
const entry = (storeId: string, query: string, substitution: string): SearchRuleEntry => ({
  type: 'query_string',
  query,
  store_id: storeId,
  substitution,
});

describe('search-rules projection', () => {
  const pg = projectionTestDatabase();

  it('one row per live rule with its normalised query key; a deleted store takes its rules with it', async () => {
    const log = new TestEventLog();
    let clock = 0;
    const run = (c: Cmd<SearchRuleCommand>) =>
      log.decide(
        searchRuleDecider,
        streamName('search_rule', c.ruleId),
        { ...c, now: t(++clock) },
        { orgId: c.organizationId, actor: 'key' },
      );
    const runStore = (c: Cmd<StoreCommand>) =>
      log.decide(
        storeDecider,
        storeStream(c.storeId),
        { ...c, now: t(++clock) },
        { orgId: c.organizationId, actor: 'key' },
      );
    const config = { contextualization: false, save_content: true };
    for (const [id, organizationId] of [
      [STORE, ORG],
      [DOOMED, ORG],
      [OTHER_STORE, OTHER_ORG],
    ])
      runStore({
        type: 'CreateStore',
        storeId: id,
        organizationId,
        name: id.slice(-1),
        description: null,
        isPublic: false,
        license: null,
        metadata: null,
        config,
        expiresAfter: null,
      }); // t1-3

    run({
      type: 'CreateSearchRule',
      ruleId: rule(1),
      storeId: STORE,
      organizationId: ORG,
      query: '  PTO  policy ',
      rules: [entry(STORE, 'pto policy', 'paid time off policy')],
    }); // t4
    run({
      type: 'CreateSearchRule',
      ruleId: rule(2),
      storeId: STORE,
      organizationId: ORG,
      query: 'wfh',
      rules: [entry(STORE, 'wfh', 'remote work')],
    }); // t5
    run({ type: 'UpdateSearchRule', ruleId: rule(2), storeId: STORE, organizationId: ORG, query: 'Work From\tHome' }); // t6
    run({
      type: 'UpdateSearchRule',
      ruleId: rule(2),
      storeId: STORE,
      organizationId: ORG,
      rules: [entry(STORE, 'work from home', 'remote work'), entry(STORE, 'work from home', 'telework')],
    }); // t7
    run({ type: 'CreateSearchRule', ruleId: rule(3), storeId: STORE, organizationId: ORG, query: 'gone', rules: [] }); // t8
    run({ type: 'DeleteSearchRule', ruleId: rule(3), storeId: STORE, organizationId: ORG }); // t9
    run({ type: 'CreateSearchRule', ruleId: rule(4), storeId: DOOMED, organizationId: ORG, query: 'x', rules: [] }); // t10
    run({
      type: 'CreateSearchRule',
      ruleId: rule(5),
      storeId: OTHER_STORE,
      organizationId: OTHER_ORG,
      query: 'PTO policy',
      rules: [],
    }); // t11
    runStore({ type: 'DeleteStore', storeId: DOOMED, organizationId: ORG }); // t12

    const rows = await pg.project(new SearchRulesProjection(), log.events);
    expect(rows[SEARCH_RULES_TABLE]).toEqual([
      {
        id: rule(1),
        organization_id: ORG,
        store_id: STORE,
        query: '  PTO  policy ',
        query_key: 'pto policy',
        rules: [entry(STORE, 'pto policy', 'paid time off policy')],
        created_at: t(4),
        updated_at: t(4),
        revision: '0',
      },
      {
        id: rule(2),
        organization_id: ORG,
        store_id: STORE,
        query: 'Work From\tHome',
        query_key: 'work from home',
        rules: [entry(STORE, 'work from home', 'remote work'), entry(STORE, 'work from home', 'telework')],
        created_at: t(5),
        updated_at: t(7),
        revision: '2',
      },
      {
        id: rule(5),
        organization_id: OTHER_ORG,
        store_id: OTHER_STORE,
        query: 'PTO policy',
        query_key: 'pto policy',
        rules: [],
        created_at: t(11),
        updated_at: t(11),
        revision: '0',
      },
    ]);
  });

  it('query keys ignore case and surrounding or repeated whitespace', () => {
    expect(queryKey('  Paid\n Time  OFF ')).toBe('paid time off');
    expect(queryKey('a')).toBe(queryKey(' A '));
  });
});

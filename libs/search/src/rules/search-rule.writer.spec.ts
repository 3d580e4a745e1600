import { Writes } from '@larder/event-store';
import {
  Clock,
  ConsistencyTimeoutError,
  IdGenerator,
  NotFoundError,
  Principal,
  READ_LAG_HEADER,
  ReadModelConsistency,
  withReadLagReporting,
} from '@larder/kernel';
import { InMemoryEventStore } from '@larder/event-store/in-memory/in-memory.event-store';
import type { SearchRuleRow, SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import type { StoreAccess } from '../store-access';
import { searchRuleStream } from '../streams';
import { SearchRuleWriter } from './search-rule.writer';
import { CreateSearchRuleHandler } from '../commands/create-search-rule/create-search-rule.handler';
import { UpdateSearchRuleHandler } from '../commands/update-search-rule/update-search-rule.handler';
import { DeleteSearchRuleHandler } from '../commands/delete-search-rule/delete-search-rule.handler';
import { DeleteSearchRuleEntryHandler } from '../commands/delete-search-rule-entry/delete-search-rule-entry.handler';
import { CreateSearchRuleCommand } from '../commands/create-search-rule/create-search-rule.command';
import { UpdateSearchRuleCommand } from '../commands/update-search-rule/update-search-rule.command';
import { DeleteSearchRuleCommand } from '../commands/delete-search-rule/delete-search-rule.command';
import { DeleteSearchRuleEntryCommand } from '../commands/delete-search-rule-entry/delete-search-rule-entry.command';
import { SearchRuleEntry } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const STORE = '22222222-2222-4222-8222-222222222222';
const p = { organizationId: ORG, apiKeyId: 'key-1', scope: null } as unknown as Principal;
const entry = (e: SearchRuleEntry) => ({
  toEntry: (parent: { query: string; storeId: string }) => ({ ...e, query: parent.query, store_id: parent.storeId }),
});

/** A read model that never catches up (every wait times out) or one that has applied everything. */
function setup(readModel: 'late' | 'caught up', rows: SearchRuleRow[] = []) {
  const store = new InMemoryEventStore();
  let t = Date.UTC(2026, 0, 1);
  let n = 0;
  const clock: Clock = { now: () => new Date((t += 1000)) };
  const ids: IdGenerator = {
    uuid: () => `33333333-3333-4333-8333-${String(++n).padStart(12, '0')}`,
    secret: () => 's',
  };
  const consistency: ReadModelConsistency = {
    waitFor: async () => {
      if (readModel === 'late') throw new ConsistencyTimeoutError('late');
    },
  };
  const reader = {
    get: async (_o: string, _s: string, id: string) => rows.find((r) => r.id === id) ?? null,
  } as unknown as SearchRulesReader;
  const access = { storeId: async () => STORE } as unknown as StoreAccess;
  const writer = new SearchRuleWriter(new Writes(store, clock, ids, consistency), reader);
  return {
    store,
    create: new CreateSearchRuleHandler(access, writer),
    update: new UpdateSearchRuleHandler(access, writer),
    remove: new DeleteSearchRuleHandler(access, writer),
    removeEntry: new DeleteSearchRuleEntryHandler(access, writer),
  };
}

/** Runs `fn` as an HTTP request would, collecting the response headers it sets. */
async function asRequest<T>(fn: () => Promise<T>): Promise<{ out: T; headers: Record<string, string> }> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (k: string, v: string) => void (headers[k] = v), headersSent: false };
  let run!: Promise<T>;
  withReadLagReporting(res, () => {
    run = fn();
  });
  return { out: await run, headers };
}

describe('search rule writes: a stored decision is a fact', () => {
  it('answers a create from the decided state when the read model is late, says reads may lag, and keeps the event', async () => {
    const s = setup('late');
    const { out, headers } = await asRequest(() =>
      s.create.execute(
        new CreateSearchRuleCommand(p, 'pantry', 'winter', [
          entry({ type: 'query_string', query: '', store_id: '', substitution: 'cabbage' }),
        ]),
      ),
    );
    expect(out).toEqual({
      id: expect.any(String),
      object: 'search_rule',
      query: 'winter',
      store_id: STORE,
      rules: [{ type: 'query_string', query: 'winter', store_id: STORE, substitution: 'cabbage' }],
      created_at: '2026-01-01T00:00:01.000Z',
      updated_at: '2026-01-01T00:00:01.000Z',
    });
    expect(headers[READ_LAG_HEADER]).toBe('search-rules');
    expect((await s.store.readStream(searchRuleStream(out.id))).map((e) => e.type)).toEqual(['SearchRuleCreated']);

    // later writes on the same rule succeed from the decided state too
    const updated = await asRequest(() =>
      s.update.execute(new UpdateSearchRuleCommand(p, 'pantry', out.id, { query: 'cold season' })),
    );
    expect(updated.out).toMatchObject({
      id: out.id,
      query: 'cold season',
      created_at: out.created_at,
      updated_at: '2026-01-01T00:00:02.000Z',
    });
    expect(updated.headers[READ_LAG_HEADER]).toBe('search-rules');
    const removed = await s.removeEntry.execute(
      new DeleteSearchRuleEntryCommand(
        p,
        'pantry',
        out.id,
        entry({ type: 'query_string', query: '', store_id: '', substitution: 'cabbage' }),
      ),
    );
    expect(removed).toEqual({
      id: out.id,
      object: 'search_rule',
      deleted_rule: { type: 'query_string', query: 'cold season', store_id: STORE, substitution: 'cabbage' },
      remaining_rules: 0,
    });
    expect(await s.remove.execute(new DeleteSearchRuleCommand(p, 'pantry', out.id))).toEqual({
      deleted: true,
      object: 'search_rule.deleted',
    });
    expect((await s.store.readStream(searchRuleStream(out.id))).map((e) => e.type)).toEqual([
      'SearchRuleCreated',
      'SearchRuleUpdated',
      'SearchRuleUpdated',
      'SearchRuleDeleted',
    ]);
    await expect(s.remove.execute(new DeleteSearchRuleCommand(p, 'pantry', out.id))).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('answers from the read model once it has caught up, without the lag header', async () => {
    const row: SearchRuleRow = {
      id: '33333333-3333-4333-8333-000000000001',
      organizationId: ORG,
      storeId: STORE,
      query: 'from the read model',
      rules: [],
      createdAt: new Date(0),
      updatedAt: new Date(0),
    };
    const s = setup('caught up', [row]);
    const { out, headers } = await asRequest(() =>
      s.create.execute(new CreateSearchRuleCommand(p, 'pantry', 'winter', [])),
    );
    expect(out).toMatchObject({ id: row.id, query: 'from the read model', created_at: '1970-01-01T00:00:00.000Z' });
    expect(headers[READ_LAG_HEADER]).toBeUndefined();
  });

  it('a rule that does not exist (or is no id) is a 404 and stores nothing', async () => {
    const s = setup('late');
    await expect(
      s.update.execute(
        new UpdateSearchRuleCommand(p, 'pantry', '33333333-3333-4333-8333-999999999999', { query: 'x' }),
      ),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(s.remove.execute(new DeleteSearchRuleCommand(p, 'pantry', 'not-a-rule'))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(await s.store.readAll()).toEqual([]);
  });
});

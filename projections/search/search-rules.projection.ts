import { EntityManager } from 'typeorm';
import { RecordedEvent, domainEvent } from '@larder/kernel';
import { SEARCH_RULE_EVENT_TYPES, SearchRuleEvent } from '@larder/search/rules/events';
import { StoreEvent } from '@larder/stores/events';
import { Projection } from '../runner/projection';
import { queryKey, SEARCH_RULES_TABLE as T } from './search-rules.tables';

/** `search-rules`: one row per live search rule, matched at search time by its normalised query. */
export class SearchRulesProjection implements Projection {
  readonly name = 'search-rules';
  readonly version = 1;
  readonly tables = [T];
  readonly handles = [...SEARCH_RULE_EVENT_TYPES, 'StoreDeleted'];

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${T} (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, store_id uuid NOT NULL, query text NOT NULL, query_key text NOT NULL,
      rules jsonb NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, revision bigint NOT NULL)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${T}_match ON ${T} (store_id, query_key)`);
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    const e = domainEvent<SearchRuleEvent | StoreEvent>(event);
    const rev = event.revision;
    switch (e.type) {
      case 'SearchRuleCreated': {
        const d = e.data;
        await m.query(
          `INSERT INTO ${T} (id, organization_id, store_id, query, query_key, rules, created_at, updated_at, revision)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) ON CONFLICT (id) DO NOTHING`,
          [d.ruleId, d.organizationId, d.storeId, d.query, queryKey(d.query), JSON.stringify(d.rules), d.at, rev],
        );
        return;
      }
      case 'SearchRuleUpdated': {
        const d = e.data;
        await m.query(
          `UPDATE ${T} SET query = COALESCE($2, query), query_key = COALESCE($3, query_key), rules = COALESCE($4::jsonb, rules), updated_at = $5, revision = $6
            WHERE id = $1 AND revision < $6`,
          [
            d.ruleId,
            d.query ?? null,
            d.query !== undefined ? queryKey(d.query) : null,
            d.rules ? JSON.stringify(d.rules) : null,
            d.at,
            rev,
          ],
        );
        return;
      }
      case 'SearchRuleDeleted':
        await m.query(`DELETE FROM ${T} WHERE id = $1`, [e.data.ruleId]);
        return;
      case 'StoreDeleted':
        await m.query(`DELETE FROM ${T} WHERE store_id = $1`, [e.data.storeId]);
        return;
      default:
        return;
    }
  }
}

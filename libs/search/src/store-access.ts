import { Inject, Injectable } from '@nestjs/common';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  Principal,
  READ_MODEL_CONSISTENCY,
  ReadModelCache,
  ReadModelConsistency,
  scopeAllows,
} from '@larder/kernel';
import { queryKey, SearchRulesReader } from '@larder/projections/search/search-rules.reader';
import { StoreRef, StoresReader } from '@larder/projections/stores/stores.reader';
import { SearchRuleEntry } from './rules/events';
import { WEB_STORE } from './web/web-search.port';

/**
 * The stores a query names, resolved in the caller's organization and checked against its key's
 * scope store by store (`search` or `read` on each), with the search rules a query triggers on them.
 */
@Injectable()
export class StoreAccess {
  /**
   * Lookups cached while the read models they come from are unchanged in this process (only where
   * this process applies them: a change is applied, and the entry outdated, before the write that
   * caused it answers): a request's stores by identifiers, and every rule of a set of stores.
   */
  private readonly cache: ReadModelCache;

  constructor(
    private readonly stores: StoresReader,
    private readonly rules: SearchRulesReader,
    @Inject(READ_MODEL_CONSISTENCY) consistency: ReadModelConsistency,
  ) {
    this.cache = new ReadModelCache(consistency);
  }

  /** Resolves ids or names in request order; a store of another organization does not exist (404). */
  async resolveStores(p: Principal, identifiers: string[]): Promise<StoreRef[]> {
    return (await this.resolveWithRules(p, identifiers, null)).stores;
  }

  /** Stores in request order (404 for one the caller's organization lacks) and the rules `query` triggers. */
  async resolveWithRules(
    p: Principal,
    identifiers: string[],
    query: string | null,
  ): Promise<{ stores: StoreRef[]; rules: SearchRuleEntry[] }> {
    if (identifiers.includes(WEB_STORE))
      throw new BadRequestError(
        'The web store (mixedbread/web) can only be searched (POST /v1/stores/search and question answering), not used here',
      );
    const resolved = await this.resolveCached(p.organizationId, identifiers, query);
    const out: StoreRef[] = [];
    const rules: SearchRuleEntry[] = [];
    for (const { identifier, store: s, rules: r } of resolved) {
      if (!s) throw new NotFoundError(`Store ${identifier} not found`);
      if (
        !scopeAllows(p.scope, { method: 'search', resourceType: 'store' }, s.id) &&
        !scopeAllows(p.scope, { method: 'read', resourceType: 'store' }, s.id)
      ) {
        throw new ForbiddenError(`This API key may not search store ${s.name}`);
      }
      if (!out.some((x) => x.id === s.id)) {
        out.push(s);
        rules.push(...r.flat());
      }
    }
    return { stores: out, rules };
  }

  /**
   * As `resolveWithRules`, for a search that may name the web store (`mixedbread/web`): it is set
   * apart (`web`), the other identifiers resolved (none: no stores, no rules).
   */
  async resolveForSearch(
    p: Principal,
    identifiers: string[],
    query: string | null,
  ): Promise<{ stores: StoreRef[]; rules: SearchRuleEntry[]; web: boolean }> {
    const web = identifiers.includes(WEB_STORE);
    const rest = identifiers.filter((x) => x !== WEB_STORE);
    if (!rest.length) return { stores: [], rules: [], web };
    return { ...(await this.resolveWithRules(p, rest, query)), web };
  }

  /** One store by id or name in the caller's organization (404 otherwise); the route's guard has checked the scope. */
  async storeId(p: Principal, identifier: string): Promise<string> {
    const s = await this.stores.resolve(p.organizationId, identifier);
    if (!s) throw new NotFoundError(`Store ${identifier} not found`);
    return s.id;
  }

  private async resolveCached(organizationId: string, identifiers: string[], query: string | null) {
    const stores = await this.cache.get(JSON.stringify(['stores', organizationId, identifiers]), ['stores'], () =>
      this.stores.resolveMany(organizationId, identifiers),
    );
    const resolved = identifiers.map((identifier, i) => ({
      identifier,
      store: stores[i],
      rules: [] as SearchRuleEntry[][],
    }));
    if (query === null) return resolved;
    const ids = stores.filter((x): x is StoreRef => !!x).map((x) => x.id);
    const all = await this.cache.get(JSON.stringify(['rules', organizationId, ids]), ['search-rules'], () =>
      this.rules.allOfStores(organizationId, ids),
    );
    const key = queryKey(query);
    return resolved.map((r) => ({
      ...r,
      rules: r.store ? all.filter((x) => x.storeId === r.store!.id && x.queryKey === key).map((x) => x.rules) : [],
    }));
  }
}

import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { DomainError, FilterNode, ForbiddenError, LIMITS, parseFilters, Principal, scopeAllows, ValidationFailedError } from '@larder/kernel';
import type { LlmTool, LlmToolCall } from '@larder/ai';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import type { AgenticToolCallRecorded } from '../events';
import { SearchStoresQuery } from '../queries/search-stores/search-stores.query';
import type { SearchStoresResponse } from '../queries/search-stores/search-stores.handler';
import { GrepStoresQuery } from '../queries/grep-stores/grep-stores.query';
import type { GrepStoresResponse } from '../queries/grep-stores/grep-stores.handler';
import { ListChunksQuery } from '../queries/list-chunks/list-chunks.query';
import type { ListChunksResponse } from '../queries/list-chunks/list-chunks.handler';
import { MetadataFacetsQuery } from '../queries/metadata-facets/metadata-facets.query';
import type { MetadataFacetsResponse } from '../queries/metadata-facets/metadata-facets.handler';
import { SearchOptionsRequestDto } from '../search-options.request.dto';
import type { CommonParams } from '../store-query.request.dto';
import type { CitedSource } from './citations';

/** Hosted tool types a request may declare: the store tools and their older aliases. */
export const HOSTED_TOOL_TYPES = [
  'store_search',
  'store_grep',
  'store_list_chunks',
  'store_metadata_facets',
  'list_stores',
  'search_corpus',
  'grep',
  'get_chunks',
  'filter_chunks',
  'inspect_metadata',
] as const;
/** The chat hosted tools, and the Responses API's `file_search` (a store search over vector stores). */
export type HostedToolType = (typeof HOSTED_TOOL_TYPES)[number] | 'file_search';

/** What a hosted tool does: aliases run the store tool they stand for. */
export type HostedKind = 'store_search' | 'store_grep' | 'store_list_chunks' | 'store_metadata_facets' | 'list_stores' | 'get_chunks';

const ALIASES: Partial<Record<HostedToolType, HostedKind>> = {
  file_search: 'store_search',
  search_corpus: 'store_search',
  grep: 'store_grep',
  filter_chunks: 'store_list_chunks',
  inspect_metadata: 'store_metadata_facets',
};
export const hostedKind = (t: HostedToolType): HostedKind => ALIASES[t] ?? (t as HostedKind);

/** A hosted tool as the caller declared it: what it may touch is fixed here; the model sets only the arguments of its schema. */
export interface HostedToolDecl {
  type: HostedToolType;
  kind: HostedKind;
  /** The function name the model calls it by (the type; `<type>_2`, … when declared again). */
  name: string;
  /** null: every store of the organization the key may search (the first 16). */
  storeIdentifiers: string[] | null;
  rawFilters: unknown;
  /** Filters already parsed (the Responses API's attribute filters), combined with the model's. */
  filter?: FilterNode | null;
  /** The model's default `top_k` (10 where not set). */
  topK?: number;
  scoreThreshold: number;
  citations: boolean;
  /** list_stores: stores listed. */
  limit: number;
}

/** One hosted tool call, done: what the response reports, what the model reads, what the event records. */
export interface HostedToolOutcome {
  item: Record<string, unknown>;
  /** The tool message the model reads (numbered passages, or JSON). */
  content: string;
  record: AgenticToolCallRecorded;
  storeIds: string[];
}

const MAX_TOP_K = 50;
/** Results a hosted tool call's record keeps (ids and scores; the model saw them all). */
const RECORDED_TOOL_RESULTS = 10;
/** Characters of one passage, and of one tool result, shown to the model. */
const PASSAGE_CHARS = 2_000;
const RESULT_CHARS = 24_000;

const metadataFilterSchema = {
  type: 'array',
  description: 'Optional metadata conditions, combined with filter_mode.',
  items: {
    type: 'object',
    properties: {
      key: { type: 'string', description: 'metadata field (dot path); generated_metadata.* for chunk metadata' },
      operator: { type: 'string', enum: ['eq', 'not_eq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'like', 'contains', 'starts_with', 'not_like', 'regex'] },
      value: {},
    },
    required: ['key', 'operator', 'value'],
  },
};
const filterMode = { type: 'string', enum: ['all', 'any'], description: 'How metadata_filters combine (default all).' };
const topK = { type: 'integer', minimum: 1, maximum: MAX_TOP_K, description: 'Number of results (default 10).' };

/** The function the model sees for a hosted tool: its name, what it does, the arguments the model may set. */
export function hostedToolFunction(d: HostedToolDecl, storeNames: string): LlmTool {
  const over = d.storeIdentifiers ? `the stores ${storeNames}` : "the user's stores";
  const fn = (description: string, properties: Record<string, unknown>, required: string[] = []): LlmTool => ({
    type: 'function',
    function: { name: d.name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
  });
  switch (d.kind) {
    case 'store_search':
      return fn(
        `Semantic and keyword search over ${over}. Returns numbered passages.`,
        { query: { type: 'string', description: 'What to search for.' }, top_k: topK, metadata_filters: metadataFilterSchema, filter_mode: filterMode },
        ['query'],
      );
    case 'store_grep':
      return fn(
        `Regular expression (RE2) search over the text of ${over}. Returns numbered passages that match.`,
        {
          pattern: { type: 'string', description: 'RE2 regular expression.' },
          case_sensitive: { type: 'boolean' },
          top_k: topK,
          metadata_filters: metadataFilterSchema,
          filter_mode: filterMode,
        },
        ['pattern'],
      );
    case 'store_list_chunks':
      return fn(`List passages of ${over} by metadata, optionally ordered by a metadata field. Returns numbered passages.`, {
        metadata_filters: metadataFilterSchema,
        filter_mode: filterMode,
        rank_by: { type: 'string', description: 'Metadata field to order by.' },
        direction: { type: 'string', enum: ['asc', 'desc'] },
        top_k: topK,
      });
    case 'store_metadata_facets':
      return fn(`The metadata fields of ${over} with their most frequent values and counts.`, {
        query: { type: 'string', description: 'Optional query that scopes the facets.' },
        facets: { type: 'array', items: { type: 'string' } },
      });
    case 'get_chunks':
      return fn(
        `Read passages of ${over} by chunk id ("<file_id>:<chunk_index>"). Returns numbered passages.`,
        { chunk_ids: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 20 } },
        ['chunk_ids'],
      );
    case 'list_stores':
      return fn("List the user's stores (names and descriptions).", {});
  }
}

interface ChunkView {
  chunk_index: number;
  file_id: string;
  filename: string;
  store_id: string;
  score: number;
  text?: string | null;
  summary?: string | null;
}

class ToolArgumentsError extends Error {}

const asArgs = (text: string): Record<string, unknown> => {
  let v: unknown;
  try {
    v = JSON.parse(text || '{}');
  } catch {
    throw new ToolArgumentsError('The arguments are not valid JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ToolArgumentsError('The arguments should be a JSON object');
  return v as Record<string, unknown>;
};
const intArg = (v: unknown, def: number, max: number) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? Math.min(v, max) : def);

/**
 * Runs hosted tools for a chat completion through the search context's own query handlers (the
 * same store resolution, per-store scope checks, search rules and activity events as the HTTP
 * routes). Each runs as the caller linked to the tool call, so its search or grep event names the
 * completion and is billed at the agent rate.
 */
@Injectable()
export class HostedTools {
  constructor(
    private readonly queries: QueryBus,
    private readonly stores: StoresReader,
  ) {}

  /** The stores a declaration without `store_identifiers` covers: the organization's, that the key may search or read (at most 16). */
  async defaultStores(p: Principal): Promise<string[]> {
    const rows = await this.stores.page(p.organizationId, null, 'forward', 200);
    return rows
      .filter((s) => scopeAllows(p.scope, { method: 'search', resourceType: 'store' }, s.id) || scopeAllows(p.scope, { method: 'read', resourceType: 'store' }, s.id))
      .slice(0, LIMITS.storeIdentifiers)
      .map((s) => s.id);
  }

  async run(
    p: Principal,
    completionId: string,
    decl: HostedToolDecl,
    call: LlmToolCall,
    sources: CitedSource[],
    ctx: { include: string[]; signal?: AbortSignal; defaultStores: () => Promise<string[]> },
  ): Promise<HostedToolOutcome> {
    const startedAt = new Date();
    const t0 = performance.now();
    const as: Principal = { ...p, toolCall: { completionId, toolCallId: call.id, via: 'hosted_tool' } };
    const item: Record<string, unknown> = { type: `${decl.type}_call`, id: call.id, status: 'completed', error: null };
    let args: Record<string, unknown> = {};
    let content: string;
    let result: Record<string, unknown> | null = null;
    let error: string | null = null;
    let storeIds: string[] = [];
    const withResults = ctx.include.includes(`${decl.type}_call.results`);
    try {
      args = asArgs(call.function.arguments);
      const storeIdentifiers = decl.storeIdentifiers ?? (await ctx.defaultStores());
      if (decl.kind !== 'list_stores') item.store = storeIdentifiers.length === 1 ? storeIdentifiers[0] : null;
      if (decl.kind !== 'list_stores' && !storeIdentifiers.length) throw new ToolArgumentsError('There are no stores to search');
      const common = (): CommonParams => {
        const raw = combineFilters(decl.rawFilters, args.metadata_filters, args.filter_mode);
        let filter;
        try {
          filter = parseFilters(raw, ['metadata_filters']);
        } catch (err) {
          if (err instanceof ValidationFailedError) throw new ToolArgumentsError(`Invalid metadata_filters: ${err.detail.map((d) => d.msg).join('; ')}`);
          throw err;
        }
        if (decl.filter) filter = filter ? { kind: 'all' as const, children: [decl.filter, filter] } : decl.filter;
        return { storeIdentifiers, topK: intArg(args.top_k, decl.topK ?? 10, MAX_TOP_K), filter, rawFilters: raw, fileIds: null };
      };
      const options = { ...SearchOptionsRequestDto.toOptions(null), scoreThreshold: decl.scoreThreshold };
      let chunks: ChunkView[] | null = null;
      switch (decl.kind) {
        case 'store_search': {
          const query = typeof args.query === 'string' && args.query.trim() ? args.query : Array.isArray(args.queries) && typeof args.queries[0] === 'string' ? args.queries[0] : null;
          if (!query) throw new ToolArgumentsError('query is required');
          Object.assign(item, { queries: [query], metadata_filters: args.metadata_filters ?? null, filter_mode: args.filter_mode === 'any' ? 'any' : 'all' });
          const out = await this.queries.execute<SearchStoresQuery, SearchStoresResponse>(new SearchStoresQuery(as, { ...common(), query, options, stream: false }, undefined, ctx.signal));
          chunks = out.data;
          break;
        }
        case 'store_grep': {
          if (typeof args.pattern !== 'string' || !args.pattern) throw new ToolArgumentsError('pattern is required');
          const caseSensitive = args.case_sensitive === true;
          Object.assign(item, {
            pattern: args.pattern,
            targets: ['text'],
            case_sensitive: caseSensitive,
            metadata_filters: args.metadata_filters ?? null,
            filter_mode: args.filter_mode === 'any' ? 'any' : 'all',
          });
          const out = await this.queries.execute<GrepStoresQuery, GrepStoresResponse>(
            new GrepStoresQuery(as, { ...common(), pattern: args.pattern.slice(0, LIMITS.patternChars), targets: ['text'], caseSensitive, returnMetadata: true }),
          );
          chunks = out.data;
          break;
        }
        case 'store_list_chunks': {
          const rankBy = typeof args.rank_by === 'string' && args.rank_by ? args.rank_by : null;
          const direction = args.direction === 'desc' ? 'desc' : 'asc';
          Object.assign(item, { metadata_filters: args.metadata_filters ?? null, filter_mode: args.filter_mode === 'any' ? 'any' : 'all', rank_by: rankBy, direction });
          const sort = rankBy
            ? rankBy.startsWith('generated_metadata.')
              ? { target: 'chunk' as const, path: rankBy.split('.').slice(1), ascending: direction === 'asc' }
              : { target: 'file' as const, path: rankBy.replace(/^metadata\./, '').split('.'), ascending: direction === 'asc' }
            : null;
          const out = await this.queries.execute<ListChunksQuery, ListChunksResponse>(new ListChunksQuery(as, { ...common(), options, sort }));
          chunks = out.data;
          break;
        }
        case 'get_chunks': {
          const ids = Array.isArray(args.chunk_ids) ? args.chunk_ids.filter((x): x is string => typeof x === 'string' && /^[^:]+:\d+$/.test(x)).slice(0, 20) : [];
          if (!ids.length) throw new ToolArgumentsError('chunk_ids should be a list of "<file_id>:<chunk_index>"');
          item.chunk_ids = ids;
          const files = [...new Set(ids.map((x) => x.split(':')[0]))];
          const out = await this.queries.execute<ListChunksQuery, ListChunksResponse>(
            new ListChunksQuery(as, { storeIdentifiers, topK: 1000, filter: null, rawFilters: null, fileIds: { include: files }, options, sort: null }),
          );
          chunks = (out.data as ChunkView[]).filter((c) => ids.includes(`${c.file_id}:${c.chunk_index}`));
          break;
        }
        case 'store_metadata_facets': {
          const query = typeof args.query === 'string' && args.query.trim() ? args.query : null;
          const only = Array.isArray(args.facets) ? args.facets.filter((x): x is string => typeof x === 'string').map((k) => k.replace(/^metadata\./, '')) : null;
          const out = await this.queries.execute<MetadataFacetsQuery, MetadataFacetsResponse>(
            new MetadataFacetsQuery(as, { ...common(), query, maxFields: 64, maxValues: 32, maxFiles: 10_000, only: only?.length ? only : null }),
          );
          item.facets = out.facets;
          result = { facets: Object.keys(out.facets).length };
          content = JSON.stringify(out.facets).slice(0, RESULT_CHARS);
          break;
        }
        case 'list_stores': {
          const rows = await this.stores.page(p.organizationId, null, 'forward', 200);
          const visible = rows.filter((s) => scopeAllows(p.scope, { method: 'search', resourceType: 'store' }, s.id) || scopeAllows(p.scope, { method: 'read', resourceType: 'store' }, s.id));
          const listed = visible.slice(0, decl.limit).map((s) => ({ name: s.name, description: s.description, connectors: [] as string[] }));
          Object.assign(item, { cursor: null, stores: listed, has_more: visible.length > listed.length, next_cursor: null });
          result = { stores: listed.length };
          content = JSON.stringify(listed.map(({ name, description }) => ({ name, description })));
          break;
        }
      }
      if (chunks) {
        storeIds = [...new Set(chunks.map((c) => c.store_id))];
        const lines: string[] = [];
        let budget = RESULT_CHARS;
        for (const c of chunks) {
          const n = sources.length;
          sources.push({ fileId: c.file_id, filename: c.filename, storeId: c.store_id, chunkIndex: c.chunk_index, citable: decl.citations });
          const text = (c.text ?? c.summary ?? '').slice(0, Math.max(0, Math.min(PASSAGE_CHARS, budget)));
          budget -= text.length;
          lines.push(`[${n}] ${c.filename} (chunk ${c.file_id}:${c.chunk_index}, score ${c.score.toFixed(3)})\n${text}`);
        }
        content = lines.length ? lines.join('\n\n') : 'No results.';
        item.results = withResults ? chunks : null;
        result = {
          ...(Array.isArray(item.queries) ? { queries: item.queries } : {}),
          result_count: chunks.length,
          results: chunks.slice(0, RECORDED_TOOL_RESULTS).map((c) => ({ file_id: c.file_id, chunk_index: c.chunk_index, score: c.score })),
        };
      }
    } catch (err) {
      const known = err instanceof ToolArgumentsError || err instanceof DomainError;
      if (!known) throw err;
      const code = err instanceof ForbiddenError ? 'permission_denied' : err instanceof DomainError && err.status >= 500 ? 'server_error' : 'invalid_arguments';
      error = err.message;
      item.status = 'failed';
      item.error = { code, message: err.message };
      content = `Error (${code}): ${err.message}`;
    }
    const record: AgenticToolCallRecorded = {
      tool_call_id: call.id,
      tool_name: decl.kind,
      tool_type: decl.kind === 'list_stores' ? 'extension' : 'datastore',
      started_at: startedAt.toISOString(),
      duration_ms: performance.now() - t0,
      arguments: args,
      result,
      error,
    };
    return { item, content: content!, record, storeIds };
  }
}

/** The declared filters AND the model's metadata_filters (combined with its filter_mode). */
function combineFilters(declared: unknown, modelFilters: unknown, mode: unknown): unknown {
  const conditions = Array.isArray(modelFilters) ? modelFilters : [];
  if (!conditions.length) return declared ?? null;
  const own = { [mode === 'any' ? 'any' : 'all']: conditions };
  return declared === null || declared === undefined ? own : { all: [...(Array.isArray(declared) ? (declared as unknown[]) : [declared]), own] };
}

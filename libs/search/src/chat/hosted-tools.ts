/** Runs the hosted tools a chat completion or response declared, through the search context's query handlers. */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  DomainError,
  ForbiddenError,
  LIMITS,
  parseFilters,
  Principal,
  scopeAllows,
  ValidationFailedError,
} from '@larder/kernel';
import type { LlmToolCall } from '@larder/ai';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { SearchStoresQuery } from '../queries/search-stores/search-stores.query';
import type { SearchStoresResponse } from '../queries/search-stores/search-stores.handler';
import { GrepStoresQuery } from '../queries/grep-stores/grep-stores.query';
import type { GrepStoresResponse } from '../queries/grep-stores/grep-stores.handler';
import { ListChunksQuery } from '../queries/list-chunks/list-chunks.query';
import type { ListChunksResponse } from '../queries/list-chunks/list-chunks.handler';
import { MetadataFacetsQuery } from '../queries/metadata-facets/metadata-facets.query';
import type { MetadataFacetsResponse } from '../queries/metadata-facets/metadata-facets.handler';
import { SearchOptionsRequestDto } from '../search-options.request.dto';
import type { AgenticToolCallRecorded } from '../events';
import type { CommonParams } from '../store-query.request.dto';
import type { CitedSource } from './citations';
import { asArgs, combineFilters, intArg, ToolArgumentsError } from './hosted-tool-args';
import { HostedToolDecl, HostedToolOutcome, MAX_TOP_K } from './hosted-tool-functions';

/** Results a hosted tool call's record keeps (ids and scores; the model saw them all). */
const RECORDED_TOOL_RESULTS = 10;
/** Characters of one passage, and of one tool result, shown to the model. */
const PASSAGE_CHARS = 2_000;
const RESULT_CHARS = 24_000;

interface ChunkView {
  chunk_index: number;
  file_id: string;
  filename: string;
  store_id: string;
  score: number;
  text?: string | null;
  summary?: string | null;
}

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
      .filter(
        (s) =>
          scopeAllows(p.scope, { method: 'search', resourceType: 'store' }, s.id) ||
          scopeAllows(p.scope, { method: 'read', resourceType: 'store' }, s.id),
      )
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
      if (decl.kind !== 'list_stores' && !storeIdentifiers.length)
        throw new ToolArgumentsError('There are no stores to search');
      const common = (): CommonParams => {
        const raw = combineFilters(decl.rawFilters, args.metadata_filters, args.filter_mode);
        let filter;
        try {
          filter = parseFilters(raw, ['metadata_filters']);
        } catch (err) {
          if (err instanceof ValidationFailedError)
            throw new ToolArgumentsError(`Invalid metadata_filters: ${err.detail.map((d) => d.msg).join('; ')}`);
          throw err;
        }
        if (decl.filter) filter = filter ? { kind: 'all' as const, children: [decl.filter, filter] } : decl.filter;
        return {
          storeIdentifiers,
          topK: intArg(args.top_k, decl.topK ?? 10, MAX_TOP_K),
          filter,
          rawFilters: raw,
          fileIds: null,
        };
      };
      const options = { ...SearchOptionsRequestDto.toOptions(null), scoreThreshold: decl.scoreThreshold };
      let chunks: ChunkView[] | null = null;
      switch (decl.kind) {
        case 'store_search': {
          const query =
            typeof args.query === 'string' && args.query.trim()
              ? args.query
              : Array.isArray(args.queries) && typeof args.queries[0] === 'string'
                ? args.queries[0]
                : null;
          if (!query) throw new ToolArgumentsError('query is required');
          Object.assign(item, {
            queries: [query],
            metadata_filters: args.metadata_filters ?? null,
            filter_mode: args.filter_mode === 'any' ? 'any' : 'all',
          });
          const out = await this.queries.execute<SearchStoresQuery, SearchStoresResponse>(
            new SearchStoresQuery(as, { ...common(), query, options, stream: false }, undefined, ctx.signal),
          );
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
            new GrepStoresQuery(as, {
              ...common(),
              pattern: args.pattern.slice(0, LIMITS.patternChars),
              targets: ['text'],
              caseSensitive,
              returnMetadata: true,
            }),
          );
          chunks = out.data;
          break;
        }
        case 'store_list_chunks': {
          const rankBy = typeof args.rank_by === 'string' && args.rank_by ? args.rank_by : null;
          const direction = args.direction === 'desc' ? 'desc' : 'asc';
          Object.assign(item, {
            metadata_filters: args.metadata_filters ?? null,
            filter_mode: args.filter_mode === 'any' ? 'any' : 'all',
            rank_by: rankBy,
            direction,
          });
          const sort = rankBy
            ? rankBy.startsWith('generated_metadata.')
              ? { target: 'chunk' as const, path: rankBy.split('.').slice(1), ascending: direction === 'asc' }
              : {
                  target: 'file' as const,
                  path: rankBy.replace(/^metadata\./, '').split('.'),
                  ascending: direction === 'asc',
                }
            : null;
          const out = await this.queries.execute<ListChunksQuery, ListChunksResponse>(
            new ListChunksQuery(as, { ...common(), options, sort }),
          );
          chunks = out.data;
          break;
        }
        case 'get_chunks': {
          const ids = Array.isArray(args.chunk_ids)
            ? args.chunk_ids.filter((x): x is string => typeof x === 'string' && /^[^:]+:\d+$/.test(x)).slice(0, 20)
            : [];
          if (!ids.length) throw new ToolArgumentsError('chunk_ids should be a list of "<file_id>:<chunk_index>"');
          item.chunk_ids = ids;
          const files = [...new Set(ids.map((x) => x.split(':')[0]))];
          const out = await this.queries.execute<ListChunksQuery, ListChunksResponse>(
            new ListChunksQuery(as, {
              storeIdentifiers,
              topK: 1000,
              filter: null,
              rawFilters: null,
              fileIds: { include: files },
              options,
              sort: null,
            }),
          );
          chunks = (out.data as ChunkView[]).filter((c) => ids.includes(`${c.file_id}:${c.chunk_index}`));
          break;
        }
        case 'store_metadata_facets': {
          const query = typeof args.query === 'string' && args.query.trim() ? args.query : null;
          const only = Array.isArray(args.facets)
            ? args.facets.filter((x): x is string => typeof x === 'string').map((k) => k.replace(/^metadata\./, ''))
            : null;
          const out = await this.queries.execute<MetadataFacetsQuery, MetadataFacetsResponse>(
            new MetadataFacetsQuery(as, {
              ...common(),
              query,
              maxFields: 64,
              maxValues: 32,
              maxFiles: 10_000,
              only: only?.length ? only : null,
            }),
          );
          item.facets = out.facets;
          result = { facets: Object.keys(out.facets).length };
          content = JSON.stringify(out.facets).slice(0, RESULT_CHARS);
          break;
        }
        case 'list_stores': {
          const rows = await this.stores.page(p.organizationId, null, 'forward', 200);
          const visible = rows.filter(
            (s) =>
              scopeAllows(p.scope, { method: 'search', resourceType: 'store' }, s.id) ||
              scopeAllows(p.scope, { method: 'read', resourceType: 'store' }, s.id),
          );
          const listed = visible
            .slice(0, decl.limit)
            .map((s) => ({ name: s.name, description: s.description, connectors: [] as string[] }));
          Object.assign(item, {
            cursor: null,
            stores: listed,
            has_more: visible.length > listed.length,
            next_cursor: null,
          });
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
          sources.push({
            fileId: c.file_id,
            filename: c.filename,
            storeId: c.store_id,
            chunkIndex: c.chunk_index,
            citable: decl.citations,
          });
          const text = (c.text ?? c.summary ?? '').slice(0, Math.max(0, Math.min(PASSAGE_CHARS, budget)));
          budget -= text.length;
          lines.push(
            `[${n}] ${c.filename} (chunk ${c.file_id}:${c.chunk_index}, score ${c.score.toFixed(3)})\n${text}`,
          );
        }
        content = lines.length ? lines.join('\n\n') : 'No results.';
        item.results = withResults ? chunks : null;
        result = {
          ...(Array.isArray(item.queries) ? { queries: item.queries } : {}),
          result_count: chunks.length,
          results: chunks
            .slice(0, RECORDED_TOOL_RESULTS)
            .map((c) => ({ file_id: c.file_id, chunk_index: c.chunk_index, score: c.score })),
        };
      }
    } catch (err) {
      const known = err instanceof ToolArgumentsError || err instanceof DomainError;
      if (!known) throw err;
      const code =
        err instanceof ForbiddenError
          ? 'permission_denied'
          : err instanceof DomainError && err.status >= 500
            ? 'server_error'
            : 'invalid_arguments';
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

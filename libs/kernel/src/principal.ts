import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';

export type ScopeMethod = 'read' | 'write' | 'delete' | 'list' | 'create' | 'search';
export const SCOPE_METHODS: readonly ScopeMethod[] = ['read', 'write', 'delete', 'list', 'create', 'search'];
export const SCOPE_RESOURCE_TYPES = ['store', 'completions'] as const;

export interface ScopeEntry {
  method: ScopeMethod;
  resource_type?: string | null;
  resource_id?: string | null;
}

/** Who is calling: resolved from the bearer API key by the auth guard. */
export interface Principal {
  organizationId: string;
  apiKeyId: string;
  admin: boolean;
  /** An admin key of the root organization: the operator, who may act on any organization (admin routes). */
  operator: boolean;
  /** null = unrestricted within the organization. */
  scope: ScopeEntry[] | null;
  /**
   * The request is a chat completion's tool call: a hosted tool Larder ran inside the completion, or
   * a client tool call whose tool ticket was redeemed (`X-Mxbai-Tool-Ticket`). Its activity event is
   * linked to the completion and it is billed at the agent rate instead of as a plain search or grep.
   */
  toolCall?: ToolCallLink;
}

/** A chat completion's tool call a search or grep runs for. */
export interface ToolCallLink {
  completionId: string;
  toolCallId: string;
  via: 'hosted_tool' | 'tool_ticket';
}

export const IS_PUBLIC = 'larder:public';
export const REQUIRED_SCOPE = 'larder:required-scope';
export const ADMIN_ONLY = 'larder:admin-only';

/** No API key needed (service info, presigned part URLs). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export interface RequiredScope {
  method: ScopeMethod;
  /** `store`, `completions`, or one of UNSCOPED_ONLY (`api_key`, `bucket`, `trace_destination`: unscoped keys only). */
  resourceType: string;
  /** Route parameter holding the resource id a scope entry may be pinned to. */
  resourceIdParam?: string;
  /**
   * The resources are named in the body (search over several stores): the guard lets the request
   * through and the handler checks `scopeAllows` for every resource it resolves. Still a declaration:
   * a route with neither this decorator nor `@Public()` is refused.
   */
  checkedPerResource?: boolean;
}
export const RequireScope = (scope: RequiredScope) => SetMetadata(REQUIRED_SCOPE, scope);
/**
 * A route on the store its path names (`:store_identifier`), under the key scope `method` on that store:
 * `@StoreRoute('write', Post('upload'), HttpCode(201))`.
 */
export const StoreRoute = (method: ScopeMethod, ...route: MethodDecorator[]) =>
  applyDecorators(...route, RequireScope({ method, resourceType: 'store', resourceIdParam: 'store_identifier' }));
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!req.principal) throw new Error('no principal on request: route is public');
  return req.principal;
});

/**
 * Resources only a key without a scope list may manage: API keys (a scoped key could mint itself an
 * unscoped one), buckets (they hold credentials and direct where tenant data is written) and trace
 * destinations (a destination receives every run of the organization).
 */
export const UNSCOPED_ONLY: readonly string[] = ['api_key', 'bucket', 'trace_destination'];

/**
 * Whether a key's scope list allows a route. Keys without a scope list may do anything in their
 * organization; keys with one may only do what an entry grants, and never manage API keys (a scoped
 * key could otherwise mint itself an unscoped one).
 */
export function scopeAllows(
  scope: ScopeEntry[] | null,
  required: RequiredScope,
  resourceId: string | undefined,
): boolean {
  if (scope === null) return true;
  if (UNSCOPED_ONLY.includes(required.resourceType)) return false;
  return scope.some(
    (s) =>
      s.method === required.method &&
      (s.resource_type == null || s.resource_type === required.resourceType) &&
      (s.resource_id == null || (resourceId !== undefined && s.resource_id === resourceId)),
  );
}

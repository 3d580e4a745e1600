import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ADMIN_ONLY,
  CLOCK,
  Clock,
  READ_MODEL_CONSISTENCY,
  ReadModelCache,
  ReadModelConsistency,
  ForbiddenError,
  IS_PUBLIC,
  Principal,
  REQUIRED_SCOPE,
  RequiredScope,
  scopeAllows,
  UnauthorizedError,
} from '@larder/kernel';
import { ApiKeyRow, ApiKeysReader } from '@larder/projections/api-keys/api-keys.reader';
import { OrganizationsReader } from '@larder/projections/organizations/organizations.reader';
import { StoresReader } from '@larder/projections/stores/stores.reader';
import { hashSecret } from '../secrets';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';
import { UnsettledKeyChanges } from './unsettled-key-changes';

/**
 * Resolves `Authorization: Bearer <key>` (or `Authorization: <key>`) to a principal on every non-public route: unknown, revoked
 * and expired keys get 401; a key whose scope does not grant the route, or a non-admin key on an
 * admin route, gets 403.
 */
@Injectable()
export class ApiKeyAuthGuard implements CanActivate {
  /** Keys looked up by secret hash, valid while the api-keys read model is unchanged in this process. */
  private readonly cache: ReadModelCache;

  constructor(
    private readonly reflector: Reflector,
    private readonly reader: ApiKeysReader,
    private readonly usage: ApiKeyUsageRecorder,
    private readonly organizations: OrganizationsReader,
    private readonly stores: StoresReader,
    private readonly unsettled: UnsettledKeyChanges,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_MODEL_CONSISTENCY) consistency: ReadModelConsistency,
  ) {
    this.cache = new ReadModelCache(consistency);
  }

  /**
   * The key of a secret. Cached only where this process applies the api-keys projection itself: any
   * change to that read model (create, revoke, reroll, update, delete) is applied, and the cache
   * invalidated, before the write that caused it answers. Expiry is checked on every request.
   */
  private lookup(secretHash: string): Promise<ApiKeyRow | null> {
    return this.cache.get(secretHash, ['api-keys'], () => this.reader.findBySecretHash(secretHash));
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const req = ctx.switchToHttp().getRequest<{
      headers: Record<string, string | undefined>;
      params: Record<string, string>;
      principal?: Principal;
    }>();
    const header = req.headers['authorization'] ?? '';
    // `Bearer <key>`, or the key alone (@mixedbread-ai/sdk 2.x and the clients built on it send no scheme)
    const match = /^\s*(?:Bearer\s+)?([^\s]+)\s*$/i.exec(header);
    if (!match) throw new UnauthorizedError('Missing API key: send it as "Authorization: Bearer <key>".');
    const secretHash = hashSecret(match[1]);
    const key = await this.lookup(secretHash);
    if (!key) throw new UnauthorizedError('Invalid API key.');
    // a write this process answered that the read model has not applied yet decides over the row
    const change = this.unsettled.pending(key);
    if (
      change &&
      (change.status === 'deleted' || (change.secretHash !== undefined && change.secretHash !== secretHash))
    )
      throw new UnauthorizedError('Invalid API key.');
    const now = this.clock.now().getTime();
    if (key.revokedAt || change?.status === 'revoked') throw new UnauthorizedError('This API key has been revoked.');
    const expiresAt = change ? (change.expiresAt ? new Date(change.expiresAt) : null) : key.expiresAt;
    if (expiresAt && expiresAt.getTime() <= now) throw new UnauthorizedError('This API key has expired.');
    const operator =
      key.admin &&
      !!(await this.cache.get(
        `root:${key.organizationId}`,
        ['organizations'],
        async () => (await this.organizations.get(key.organizationId))?.root ?? false,
      ));
    const principal: Principal = {
      organizationId: key.organizationId,
      apiKeyId: key.id,
      admin: key.admin,
      operator,
      scope: (change ? change.scope : key.scope) ?? null,
    };
    req.principal = principal;

    const adminOnly = this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets);
    if (adminOnly && !principal.admin) throw new ForbiddenError('This operation needs an admin API key.');
    const required = this.reflector.getAllAndOverride<RequiredScope | undefined>(REQUIRED_SCOPE, targets);
    // fail closed: a route that declares neither a scope, admin-only nor public is open to no key
    if (!required && !adminOnly) throw new ForbiddenError('This route declares no scope; it is closed to every key.');
    if (required && !required.checkedPerResource) {
      // route parameters arrive decoded once already (decoding again turned `%25` into a 500)
      const named = required.resourceIdParam ? (req.params[required.resourceIdParam] ?? '') : undefined;
      // a pinned scope names a store id; a store named in the URL is resolved to its id first, so
      // a store that later takes a pinned name (or a name equal to a pinned id) gains nothing
      const resourceId =
        named !== undefined && required.resourceType === 'store' && principal.scope?.some((e) => e.resource_id != null)
          ? ((
              await this.cache.get(`store:${principal.organizationId}:${named}`, ['stores'], () =>
                this.stores.resolve(principal.organizationId, named),
              )
            )?.id ?? named)
          : named;
      if (!scopeAllows(principal.scope, required, resourceId)) {
        throw new ForbiddenError(
          required.resourceType === 'api_key'
            ? 'API keys can only be managed with a key that has no scope restrictions.'
            : required.resourceType === 'bucket'
              ? 'Buckets can only be managed with a key that has no scope restrictions.'
              : `This API key's scope does not allow ${required.method} on ${required.resourceType}${resourceId ? ` ${resourceId}` : ''}.`,
        );
      }
    }
    this.usage.touch(key);
    return true;
  }
}

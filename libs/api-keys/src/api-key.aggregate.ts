import { ConflictError, Decider, NotFoundError, ScopeEntry } from '@larder/kernel';
import { ApiKeyEvent } from './events';

export interface ApiKeyState {
  status: 'absent' | 'active' | 'revoked' | 'deleted';
  organizationId: string | null;
  name: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** What the key's response shows, so a write can answer from its decided state when the read model is late. */
  redactedValue: string | null;
  scope: ScopeEntry[] | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export type ApiKeyCommand =
  | {
      type: 'CreateApiKey';
      apiKeyId: string;
      organizationId: string;
      name: string;
      secretHash: string;
      redactedValue: string;
      scope: ScopeEntry[] | null;
      expiresAt: Date | null;
      admin: boolean;
      now: Date;
    }
  | {
      type: 'UpdateApiKey';
      apiKeyId: string;
      organizationId: string;
      name?: string;
      expiresAt?: Date | null;
      now: Date;
    }
  | { type: 'RevokeApiKey'; apiKeyId: string; organizationId: string; now: Date }
  | {
      type: 'RerollApiKey';
      apiKeyId: string;
      organizationId: string;
      secretHash: string;
      redactedValue: string;
      now: Date;
    }
  | { type: 'DeleteApiKey'; apiKeyId: string; organizationId: string; now: Date }
  | { type: 'RecordApiKeyUse'; apiKeyId: string; organizationId: string; now: Date; minIntervalMs: number };

export const initialApiKeyState = (): ApiKeyState => ({
  status: 'absent',
  organizationId: null,
  name: null,
  expiresAt: null,
  lastUsedAt: null,
  redactedValue: null,
  scope: null,
  createdAt: null,
  updatedAt: null,
});

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: initialApiKeyState,

  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return {
          status: 'active',
          organizationId: event.data.organizationId,
          name: event.data.name,
          expiresAt: event.data.expiresAt,
          lastUsedAt: null,
          redactedValue: event.data.redactedValue,
          scope: event.data.scope,
          createdAt: event.data.createdAt,
          updatedAt: event.data.createdAt,
        };
      case 'ApiKeyUpdated':
        return {
          ...state,
          name: event.data.name ?? state.name,
          expiresAt: event.data.expiresAt !== undefined ? event.data.expiresAt : state.expiresAt,
          updatedAt: event.data.updatedAt,
        };
      case 'ApiKeyRevoked':
        return {
          ...state,
          status: 'revoked',
          expiresAt: earliest(state.expiresAt, event.data.revokedAt),
          updatedAt: event.data.revokedAt,
        };
      case 'ApiKeyRerolled':
        return { ...state, redactedValue: event.data.redactedValue, updatedAt: event.data.rerolledAt };
      case 'ApiKeyDeleted':
        return { ...state, status: 'deleted' };
      case 'ApiKeyUsed':
        return { ...state, lastUsedAt: event.data.usedAt };
    }
  },

  decide(command, state) {
    if (command.type === 'CreateApiKey') {
      if (state.status !== 'absent') throw new ConflictError(`API key ${command.apiKeyId} already exists`);
      return [
        {
          type: 'ApiKeyCreated',
          data: {
            apiKeyId: command.apiKeyId,
            organizationId: command.organizationId,
            name: command.name,
            secretHash: command.secretHash,
            redactedValue: command.redactedValue,
            scope: command.scope,
            expiresAt: command.expiresAt ? command.expiresAt.toISOString() : null,
            admin: command.admin,
            createdAt: command.now.toISOString(),
          },
        },
      ];
    }
    // Another organization's key does not exist for the caller.
    if (state.status === 'absent' || state.status === 'deleted' || state.organizationId !== command.organizationId) {
      throw new NotFoundError(`API key ${command.apiKeyId} not found`);
    }
    const now = command.now.toISOString();
    switch (command.type) {
      case 'UpdateApiKey':
        if (command.name === undefined && command.expiresAt === undefined) return [];
        if (state.status === 'revoked' && command.expiresAt !== undefined) {
          throw new ConflictError('A revoked API key cannot be given a new expiry');
        }
        return [
          {
            type: 'ApiKeyUpdated',
            data: {
              apiKeyId: command.apiKeyId,
              ...(command.name !== undefined ? { name: command.name } : {}),
              ...(command.expiresAt !== undefined
                ? { expiresAt: command.expiresAt ? command.expiresAt.toISOString() : null }
                : {}),
              updatedAt: now,
            },
          },
        ];
      case 'RevokeApiKey':
        if (state.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { apiKeyId: command.apiKeyId, revokedAt: now } }];
      case 'RerollApiKey':
        // any key that exists can be rerolled; a revoked key stays revoked (its new secret is refused too)
        return [
          {
            type: 'ApiKeyRerolled',
            data: {
              apiKeyId: command.apiKeyId,
              secretHash: command.secretHash,
              redactedValue: command.redactedValue,
              rerolledAt: now,
            },
          },
        ];
      case 'DeleteApiKey':
        return [{ type: 'ApiKeyDeleted', data: { apiKeyId: command.apiKeyId, deletedAt: now } }];
      case 'RecordApiKeyUse':
        if (state.lastUsedAt && command.now.getTime() - Date.parse(state.lastUsedAt) < command.minIntervalMs) return [];
        return [{ type: 'ApiKeyUsed', data: { apiKeyId: command.apiKeyId, usedAt: now } }];
    }
  },
};

/** The key as its decided state shows it (the response of a write whose read model is late). */
export function apiKeyView(id: string, s: ApiKeyState) {
  const date = (x: string | null) => (x ? new Date(x) : null);
  return {
    id,
    name: s.name ?? '',
    redactedValue: s.redactedValue ?? '',
    expiresAt: date(s.expiresAt),
    createdAt: new Date(s.createdAt ?? 0),
    updatedAt: new Date(s.updatedAt ?? s.createdAt ?? 0),
    lastActiveAt: date(s.lastUsedAt),
    scope: s.scope,
  };
}

function earliest(a: string | null, b: string): string {
  return a && Date.parse(a) < Date.parse(b) ? a : b;
}

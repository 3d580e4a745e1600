import type { ScopeEntry } from '@larder/kernel';

/** `ApiKey` as the API answers it (the secret only on create and reroll). */
export interface ApiKeyResponse {
  id: string;
  name: string;
  redacted_value: string;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  last_active_at: string | null;
  object: 'api_key';
  scope: ScopeEntry[] | null;
}

export interface ApiKeyCreatedResponse extends ApiKeyResponse {
  value: string;
}

export function toApiKeyResponse(row: {
  id: string;
  name: string;
  redactedValue: string;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  lastActiveAt: Date | null;
  scope: ScopeEntry[] | null;
}): ApiKeyResponse {
  return {
    id: row.id,
    name: row.name,
    redacted_value: row.redactedValue,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_active_at: row.lastActiveAt ? row.lastActiveAt.toISOString() : null,
    object: 'api_key',
    scope: row.scope ?? null,
  };
}

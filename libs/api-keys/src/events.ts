import { ScopeEntry } from '@larder/kernel';

/** Events carry the SHA-256 of a key's secret, never the secret. */
export interface ApiKeyCreated {
  type: 'ApiKeyCreated';
  data: {
    apiKeyId: string;
    organizationId: string;
    name: string;
    secretHash: string;
    redactedValue: string;
    scope: ScopeEntry[] | null;
    expiresAt: string | null;
    admin: boolean;
    createdAt: string;
  };
}
export interface ApiKeyUpdated {
  type: 'ApiKeyUpdated';
  data: { apiKeyId: string; name?: string; expiresAt?: string | null; updatedAt: string };
}
export interface ApiKeyRevoked {
  type: 'ApiKeyRevoked';
  data: { apiKeyId: string; revokedAt: string };
}
export interface ApiKeyRerolled {
  type: 'ApiKeyRerolled';
  data: { apiKeyId: string; secretHash: string; redactedValue: string; rerolledAt: string };
}
export interface ApiKeyDeleted {
  type: 'ApiKeyDeleted';
  data: { apiKeyId: string; deletedAt: string };
}
export interface ApiKeyUsed {
  type: 'ApiKeyUsed';
  data: { apiKeyId: string; usedAt: string };
}
export type ApiKeyEvent = ApiKeyCreated | ApiKeyUpdated | ApiKeyRevoked | ApiKeyRerolled | ApiKeyDeleted | ApiKeyUsed;
export const API_KEY_EVENT_TYPES = [
  'ApiKeyCreated',
  'ApiKeyUpdated',
  'ApiKeyRevoked',
  'ApiKeyRerolled',
  'ApiKeyDeleted',
  'ApiKeyUsed',
] as const;
export const isApiKeyEvent = (e: { type: string }): e is ApiKeyEvent =>
  (API_KEY_EVENT_TYPES as readonly string[]).includes(e.type);

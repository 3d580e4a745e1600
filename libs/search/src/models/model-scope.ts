/**
 * Model inference (embeddings, reranking) belongs to the `completions` resource type of key scopes
 * (a resource type of their own in key scopes), as chat completions do: `create` runs a model; `list` and `read` see which
 * models are served.
 */
export const MODEL_CREATE_SCOPE = { method: 'create', resourceType: 'completions' } as const;
export const MODEL_LIST_SCOPE = { method: 'list', resourceType: 'completions' } as const;
export const MODEL_READ_SCOPE = { method: 'read', resourceType: 'completions' } as const;

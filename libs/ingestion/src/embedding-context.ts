/**
 * Store contextualization (`config.contextualization`): what is added to each chunk's
 * embedded text (never to its returned text).
 *  - `true`: the file context (file name, document title, heading path) and all of the file's metadata;
 *  - `{with_file_context: true}`: the file context;
 *  - `{with_metadata: true | ["author.name", …]}`: all metadata, or the listed dot paths;
 *  - `false`, `{}` (both options off): nothing.
 */
export interface ContextualizationPlan {
  fileContext: boolean;
  metadata: boolean | string[];
}

export function contextualizationPlan(c: unknown): ContextualizationPlan {
  if (c === true) return { fileContext: true, metadata: true };
  if (!c || typeof c !== 'object' || Array.isArray(c)) return { fileContext: false, metadata: false };
  const o = c as { with_metadata?: unknown; with_file_context?: unknown };
  const metadata =
    o.with_metadata === true
      ? true
      : Array.isArray(o.with_metadata)
        ? o.with_metadata.filter((k): k is string => typeof k === 'string' && !!k)
        : false;
  return {
    fileContext: o.with_file_context === true,
    metadata: Array.isArray(metadata) && !metadata.length ? false : metadata,
  };
}

/** Whether a file's metadata is part of what is embedded (a metadata change then re-embeds it). */
export const embedsMetadata = (c: unknown) => contextualizationPlan(c).metadata !== false;

/** Most characters of metadata put before one chunk's text. */
export const METADATA_CONTEXT_CHARS = 2000;

const scalar = (v: unknown): string => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : JSON.stringify(v));

function flatten(prefix: string, v: unknown, out: string[]): void {
  if (v === null || v === undefined) return;
  if (typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) flatten(prefix ? `${prefix}.${k}` : k, x, out);
    return;
  }
  const text = Array.isArray(v) ? v.map(scalar).join(', ') : scalar(v);
  if (text) out.push(prefix ? `${prefix}: ${text}` : text);
}

function at(metadata: unknown, path: string): unknown {
  let v = metadata;
  for (const part of path.split('.')) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * The metadata lines (`key: value`, dot paths for nested keys) a plan embeds, at most
 * `METADATA_CONTEXT_CHARS`; null when none. Metadata that is no object is one line of its value
 * (all of it), or nothing (listed paths).
 */
export function metadataLines(metadata: unknown, which: boolean | string[]): string | null {
  if (which === false || metadata === null || metadata === undefined) return null;
  const out: string[] = [];
  if (which === true) flatten('', metadata, out);
  else for (const path of which) flatten(path, at(metadata, path), out);
  const text = out.join('\n');
  return text ? text.slice(0, METADATA_CONTEXT_CHARS) : null;
}

import { registerDecorator, ValidationOptions } from 'class-validator';
import { PayloadTooLargeError, ValidationFailedError } from './errors';
import { textProblem } from './text';

type Loc = (string | number)[];

/**
 * Every size a request may have, checked before any work starts (documented in the README's
 * "Limits"). Together they bound every event: no event may exceed MAX_EVENT_BYTES.
 */
export const LIMITS = {
  /** JSON request bodies (LARDER_JSON_LIMIT may lower or raise it), and their nesting. */
  jsonBodyBytes: 1024 * 1024,
  jsonDepth: 32,
  /** Metadata of a store or store file: serialized size, keys at all levels, nesting, one string. */
  metadataBytes: 64 * 1024,
  metadataKeys: 256,
  metadataDepth: 8,
  metadataStringChars: 16 * 1024,
  /** Search filters: serialized size, nesting, conditions, values of one `in` list. */
  filterBytes: 64 * 1024,
  filterDepth: 16,
  filterConditions: 256,
  filterListValues: 1024,
  /** Identifiers named in one request (stores to search, files to attach or restrict to). */
  storeIdentifiers: 16,
  fileIds: 1000,
  /** Results of one search, grep, list-chunks, facets or QA request: a larger `top_k` is taken as this many (never a 422). */
  results: 1000,
  /** A search query, a question, a grep pattern. */
  queryChars: 65_536,
  patternChars: 1024,
  /** A file name (of an upload, a multipart upload, an OpenAI file), as common filesystems bound it. */
  filenameChars: 1024,
  /** The largest event any command may append (the event store refuses larger ones). */
  eventBytes: 1024 * 1024,
} as const;

const byteLength = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');

/**
 * The first way `value` breaks the metadata limits, or null. Metadata is any JSON value (an object,
 * a list, a string, a number, a boolean, null), as the clients type it. Iterative: any nesting is safe.
 */
export function metadataProblem(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (byteLength(value) > LIMITS.metadataBytes) return `metadata must be at most ${LIMITS.metadataBytes} bytes as JSON`;
  let keys = 0;
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 1 }];
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (typeof v === 'string' && v.length > LIMITS.metadataStringChars)
      return `metadata strings must be at most ${LIMITS.metadataStringChars} characters`;
    if (typeof v === 'string' && v.includes('\u0000')) return 'metadata strings must not contain the NUL character';
    if (v === null || typeof v !== 'object') continue;
    if (depth > LIMITS.metadataDepth) return `metadata must be nested at most ${LIMITS.metadataDepth} levels deep`;
    const entries = Object.entries(v);
    if (!Array.isArray(v)) keys += entries.length;
    if (keys > LIMITS.metadataKeys) return `metadata may have at most ${LIMITS.metadataKeys} keys in all`;
    for (const [k, child] of entries) {
      if (k.includes('\u0000')) return 'metadata keys must not contain the NUL character';
      stack.push({ v: child, depth: depth + 1 });
    }
  }
  return null;
}

/** Metadata where OpenAI's API types a map (a vector store's `metadata`, a file's `attributes`): an object as it is, anything else as `{}`. */
export const metadataAsMap = (metadata: unknown): object =>
  metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? metadata : {};

/** For values that do not pass through a DTO (multipart fields): 422 at `loc` when metadata breaks a limit. */
export function checkMetadata(value: unknown, loc: Loc): void {
  const problem = metadataProblem(value);
  if (problem) throw new ValidationFailedError([{ loc, msg: problem, type: 'value_error' }]);
}

/** class-validator: metadata (any JSON value) within LIMITS (null and absent pass; combine with @IsOptional); over a limit a `value_error`. */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { ...options, context: { type: 'value_error' } },
      validator: {
        validate: (v: unknown) => metadataProblem(v) === null,
        defaultMessage: (args) => metadataProblem(args?.value) ?? 'invalid metadata',
      },
    });
  };
}

/** The event-store backstop: an event over LIMITS.eventBytes is refused before it is written. */
export function assertEventSizes(events: ReadonlyArray<{ type: string; data: unknown; metadata?: unknown }>): void {
  for (const e of events) {
    const bytes = byteLength(e.data) + byteLength(e.metadata ?? null);
    if (bytes > LIMITS.eventBytes)
      throw new PayloadTooLargeError(
        `${e.type} would be ${bytes} bytes; events are at most ${LIMITS.eventBytes} bytes`,
      );
  }
}

/** The serialized size of an event's data and metadata (what `assertEventSizes` measures). */
export const eventBytes = (e: { data: unknown; metadata?: unknown }) =>
  byteLength(e.data) + byteLength(e.metadata ?? null);

/**
 * Walks parsed input without recursion: the first value nested deeper than LIMITS.jsonDepth or a
 * string or key that breaks `textProblem`'s rule (NUL, lone surrogate), as a 422 at its `loc`. JSON
 * bodies and the JSON carried in multipart fields both pass through it.
 */
export function plainInputProblem(input: unknown, at: Loc): ValidationFailedError | null {
  const stack: Array<{ value: unknown; loc: Loc }> = [{ value: input, loc: at }];
  while (stack.length) {
    const { value, loc } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value, loc);
      if (problem) return problem;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (loc.length - at.length >= LIMITS.jsonDepth) {
      return new ValidationFailedError([
        { loc, msg: `JSON nested deeper than ${LIMITS.jsonDepth} levels`, type: 'too_deep' },
      ]);
    }
    for (const [k, v] of Object.entries(value)) {
      const key = Array.isArray(value) ? Number(k) : k;
      const problem = typeof key === 'string' ? textProblem(key, [...loc, key], 'Keys') : null;
      if (problem) return problem;
      stack.push({ value: v, loc: [...loc, key] });
    }
  }
  return null;
}

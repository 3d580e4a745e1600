/**
 * The builders the OpenAPI response schemas are written with: JSON Schema shorthands (`obj`, `nullable`, `arr`, …)
 * and the list and deletion envelopes every resource shares.
 */

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str: Schema = { type: 'string' };
export const int: Schema = { type: 'integer' };
export const num: Schema = { type: 'number' };
export const bool: Schema = { type: 'boolean' };
export const dt: Schema = { type: 'string', format: 'date-time' };
export const any: Schema = {};
export const nullable = (s: Schema): Schema =>
  '$ref' in s || 'enum' in s || 'const' in s
    ? { anyOf: [s, { type: 'null' }] }
    : { ...s, type: [s.type as string, 'null'] };
export const arr = (items: Schema): Schema => ({ type: 'array', items });
export const lit = (value: string): Schema => ({ const: value });
export const oneOfEnum = (...values: string[]): Schema => ({ enum: values });
/** An object whose `required` keys are always present, `optional` ones sometimes. */
export const obj = (required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  required: Object.keys(required),
  properties: { ...required, ...optional },
});
/** A decimal sent as a string (`"12.50"`). */
export const dec: Schema = { type: 'string', pattern: '^[+-]?\\d*\\.?\\d*$' };
/** An ISO 8601 duration (`PT1.5S`). */
export const dur: Schema = { type: 'string', pattern: '^P' };

export const cursorList = (item: string): Schema =>
  obj({ object: lit('list'), data: arr(ref(item)), pagination: ref('CursorPagination') });
export const offsetList = (item: string): Schema =>
  obj({ object: lit('list'), data: arr(ref(item)), pagination: obj({ limit: int, offset: int, total: int }) });
export const openAiList = (item: string): Schema =>
  obj({ object: lit('list'), data: arr(ref(item)), first_id: nullable(str), last_id: nullable(str), has_more: bool });
export const deleted = (object: string): Schema => obj({ id: str, deleted: { const: true }, object: lit(object) });

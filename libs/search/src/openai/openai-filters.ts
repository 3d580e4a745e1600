import { ConditionOperator, FilterNode, isPlainObject, LIMITS, Problems } from '@larder/kernel';

type Loc = (string | number)[];

/** OpenAI's comparison operators as Larder's filter operators. */
const COMPARISONS: Record<string, ConditionOperator> = {
  eq: 'eq',
  ne: 'not_eq',
  gt: 'gt',
  gte: 'gte',
  lt: 'lt',
  lte: 'lte',
  in: 'in',
  nin: 'not_in',
};

const scalar = (v: unknown) =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * OpenAI's attribute `filters` (a comparison `{key, type, value}` or a compound `{type: and|or,
 * filters}`, nestable) as Larder's filter tree over the store file's metadata. The key is one
 * attribute name, taken as it is (a dot in it is part of the name, not a path). Problems are added to
 * `p` with their `loc`; null when there is nothing to filter.
 */
export function openAiFilter(input: unknown, p: Problems, loc: Loc = ['body', 'filters']): FilterNode | null {
  if (input === undefined || input === null) return null;
  const bytes = Buffer.byteLength(JSON.stringify(input) ?? '', 'utf8');
  if (bytes > LIMITS.filterBytes) {
    p.add(loc, `Filters must be at most ${LIMITS.filterBytes} bytes as JSON (these are ${bytes})`, 'value_error');
    return null;
  }
  const counter = { conditions: 0 };
  const node = translate(input, p, loc, 1, counter);
  if (counter.conditions > LIMITS.filterConditions)
    p.add(loc, `Filters may hold at most ${LIMITS.filterConditions} conditions`, 'value_error');
  return node;
}

function translate(
  input: unknown,
  p: Problems,
  loc: Loc,
  depth: number,
  counter: { conditions: number },
): FilterNode | null {
  if (depth > LIMITS.filterDepth) {
    p.add(loc, `Filters are nested too deeply (at most ${LIMITS.filterDepth} levels)`, 'value_error');
    return null;
  }
  if (!isPlainObject(input)) {
    p.add(
      loc,
      'A filter is a comparison {key, type, value} or a compound filter {type: "and" | "or", filters}',
      'model_type',
      input,
    );
    return null;
  }
  const type = input.type;
  if (type === 'and' || type === 'or') {
    const extra = Object.keys(input).find((k) => k !== 'type' && k !== 'filters');
    if (extra) p.add([...loc, extra], `Unknown field '${extra}' of a compound filter`, 'extra_forbidden');
    if (!Array.isArray(input.filters)) {
      p.add([...loc, 'filters'], 'A compound filter needs a list of filters', 'list_type', input.filters);
      return null;
    }
    const children = (input.filters as unknown[])
      .map((f, i) => translate(f, p, [...loc, 'filters', i], depth + 1, counter))
      .filter((x): x is FilterNode => x !== null);
    return { kind: type === 'and' ? 'all' : 'any', children };
  }
  const operator = typeof type === 'string' ? COMPARISONS[type] : undefined;
  if (!operator) {
    p.add(
      [...loc, 'type'],
      `type must be one of ${[...Object.keys(COMPARISONS), 'and', 'or'].join(', ')}`,
      'enum',
      type,
    );
    return null;
  }
  counter.conditions++;
  const extra = Object.keys(input).find((k) => !['key', 'type', 'value'].includes(k));
  if (extra) p.add([...loc, extra], `Unknown field '${extra}' of a comparison filter`, 'extra_forbidden');
  const key = input.key;
  if (typeof key !== 'string' || !key)
    p.add([...loc, 'key'], 'key must be a non-empty string (an attribute name)', 'string_type', key);
  const value = input.value;
  if (operator === 'in' || operator === 'not_in') {
    if (
      !Array.isArray(value) ||
      !value.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))
    ) {
      p.add([...loc, 'value'], `'${String(type)}' needs a list of strings or numbers`, 'list_type', value);
    } else if (value.length > LIMITS.filterListValues) {
      p.add([...loc, 'value'], `A list value holds at most ${LIMITS.filterListValues} items`, 'too_long');
    }
  } else if (operator === 'eq' || operator === 'not_eq') {
    if (!scalar(value))
      p.add([...loc, 'value'], `'${String(type)}' needs a string, number or boolean`, 'value_error', value);
  } else if (!(typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) {
    p.add([...loc, 'value'], `'${String(type)}' needs a number or a string`, 'value_error', value);
  }
  if (typeof key !== 'string' || !key) return null;
  return { kind: 'condition', target: 'file', path: [key], operator, value };
}

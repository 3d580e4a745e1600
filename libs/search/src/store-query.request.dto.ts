import { Allow } from 'class-validator';
import {
  Check,
  CONDITION_OPERATORS,
  FilterNode,
  parseFilters,
  Problems,
  Required,
  ValidationFailedError,
  LIMITS,
} from '@larder/kernel';

type Loc = (string | number)[];

/**
 * The most results one request answers. `top_k` itself has no maximum (the official clients declare
 * none, and a larger value is no error): it is taken as at most this many, which bounds the work and
 * the response of one request.
 */
export const MAX_TOP_K = LIMITS.results;
export const MAX_STORES = LIMITS.storeIdentifiers;

export interface FileIdSelection {
  include?: string[];
  exclude?: string[];
}

/** The fields every store query shares, compiled. */
export interface CommonParams {
  storeIdentifiers: string[];
  topK: number;
  filter: FilterNode | null;
  /** The filters as sent (recorded in activity events). */
  rawFilters: unknown;
  fileIds: FileIdSelection | null;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const absent = (v: unknown) => v === undefined || v === null;

/**
 * The fields every store query shares (search, grep, list-chunks, facets, QA): `store_identifiers`, `top_k`, `filters`, `file_ids`.
 * Field-level checks are class-validator constraints; what lies below a field (each store name, the
 * recursive `filters` tree, the `[operator, ids]` form of `file_ids`) is compiled by `common()` with
 * the locations of its parts, after the field-level checks have passed.
 */
export abstract class StoreQueryRequestDto {
  @Required(true)
  @Check('isList', 'list_type', 'Input should be a valid list', (v) => v === undefined || Array.isArray(v))
  @Check(
    'minItems',
    'too_short',
    'List should have at least 1 item after validation, not 0',
    (v) => !Array.isArray(v) || v.length >= 1,
  )
  @Check(
    'maxItems',
    'too_long',
    (v) => `List should have at most ${MAX_STORES} items after validation, not ${(v as unknown[]).length}`,
    (v) => !Array.isArray(v) || v.length <= MAX_STORES,
  )
  store_identifiers!: unknown[];

  @Check('isInt', 'int_type', 'Input should be a valid integer', (v) => absent(v) || isInt(v))
  @Check('min', 'greater_than_equal', 'Input should be greater than or equal to 1', (v) => !isInt(v) || v >= 1)
  top_k?: number | null;

  /** A filter, a condition, a list of either, or null: compiled by the kernel's filter compiler. */
  @Allow()
  filters?: unknown;

  /** A list of file ids, or an `[operator, ids]` tuple. */
  @Allow()
  file_ids?: unknown;

  /** The shared fields, compiled; problems below the field level go to `p`. */
  protected common(p: Problems): CommonParams {
    const ids = this.store_identifiers;
    ids.forEach((x, i) => {
      if (typeof x !== 'string' || !x)
        p.add(['body', 'store_identifiers', i], 'Input should be a valid string', 'string_type', x);
    });
    let filter: FilterNode | null = null;
    try {
      filter = parseFilters(this.filters, ['body', 'filters']);
    } catch (err) {
      if (err instanceof ValidationFailedError) p.list.push(...err.detail);
      else throw err;
    }
    return {
      storeIdentifiers: [...new Set(ids as string[])],
      topK: Math.min(this.top_k ?? 10, MAX_TOP_K),
      filter,
      rawFilters: this.filters ?? null,
      fileIds: fileIds(p, this.file_ids),
    };
  }
}

function fileIds(p: Problems, v: unknown): FileIdSelection | null {
  const loc = ['body', 'file_ids'];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) {
    p.add(loc, 'Input should be a list of file ids or an [operator, [file ids]] tuple', 'list_type', v);
    return null;
  }
  const strings = (xs: unknown[], at: Loc) => {
    if (xs.length > LIMITS.fileIds)
      p.add(
        at,
        `List should have at most ${LIMITS.fileIds} items after validation, not ${xs.length}`,
        'too_long',
        xs.length,
      );
    const bad = xs.findIndex((x) => typeof x !== 'string' || !x);
    if (bad >= 0) p.add([...at, bad], 'Input should be a file id string', 'string_type', xs[bad]);
    return xs as string[];
  };
  // a tuple: [operator, list | id], the operator first (a ConditionOperator value)
  if (typeof v[0] === 'string' && (CONDITION_OPERATORS as readonly string[]).includes(v[0])) {
    const op = v[0];
    if (v.length !== 2 || !(Array.isArray(v[1]) || typeof v[1] === 'string')) {
      p.add(loc, 'The tuple form is [operator, [file ids]]', 'value_error', v);
      return null;
    }
    if (!['in', 'not_in', 'eq', 'not_eq'].includes(op)) {
      p.add(
        [...loc, 0],
        `file_ids supports the operators 'in', 'not_in', 'eq' and 'not_eq', not '${op}'`,
        'value_error',
        op,
      );
      return null;
    }
    const ids = Array.isArray(v[1]) ? strings(v[1], [...loc, 1]) : [v[1]];
    return op === 'in' || op === 'eq' ? { include: ids } : { exclude: ids };
  }
  if (v.length === 2 && typeof v[0] === 'string' && Array.isArray(v[1])) {
    p.add(
      [...loc, 0],
      `Unknown operator '${v[0]}': the tuple form is [operator, [file ids]] with 'in', 'not_in', 'eq' or 'not_eq'`,
      'value_error',
      v[0],
    );
    return null;
  }
  return { include: strings(v, loc) };
}

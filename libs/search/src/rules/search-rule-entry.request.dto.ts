import { applyDecorators } from '@nestjs/common';
import { Check, re2 } from '@larder/kernel';
import { REGEX_FLAGS, RegexFlag, SearchRuleEntry } from './events';

const RULE_TYPES = ['query_string', 'query_regex', 'chunk_search_result', 'file_search_result'] as const;
const PIN_TYPES: readonly unknown[] = ['chunk_search_result', 'file_search_result'];

const absent = (v: unknown) => v === undefined || v === null;
const nonNegInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const regexError = (pattern: unknown): string | null => {
  if (typeof pattern !== 'string') return null;
  try {
    re2(pattern);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
};

/** A string that only rules of `types` have (and need when `required`). */
const StringOf = (types: readonly unknown[], required = true) =>
  applyDecorators(
    Check('required', 'missing', 'Field required', (v, dto) => !required || !types.includes(dto.type) || !absent(v)),
    Check(
      'isString',
      'string_type',
      'Input should be a valid string',
      (v, dto) => !types.includes(dto.type) || absent(v) || typeof v === 'string',
    ),
  );

/** An integer ≥ 0 of a pin; `nullIsAbsent` for `chunk_index`, which a file pin may leave out (0). */
const PinIndex = (options: { optionalFor?: string; nullIsAbsent: boolean }) => {
  const pin = (dto: Record<string, unknown>) => PIN_TYPES.includes(dto.type);
  const missing = (v: unknown) => v === undefined || (options.nullIsAbsent && v === null);
  return applyDecorators(
    Check(
      'required',
      'missing',
      'Input should be an integer ≥ 0',
      (v, dto) => !pin(dto) || !missing(v) || dto.type === options.optionalFor,
    ),
    Check(
      'nonNegInt',
      'int_type',
      'Input should be an integer ≥ 0',
      (v, dto) => !pin(dto) || missing(v) || nonNegInt(v),
    ),
  );
};

/** One `Rule` of a search rule; `query` and `store_id` default to the parent rule's. */
export class SearchRuleEntryRequestDto {
  @Check(
    'literal',
    'literal_error',
    "Input should be 'query_string', 'query_regex', 'chunk_search_result' or 'file_search_result'",
    (v) => (RULE_TYPES as readonly unknown[]).includes(v),
  )
  type!: SearchRuleEntry['type'];

  @StringOf(RULE_TYPES, false)
  query?: string | null;

  @StringOf(RULE_TYPES, false)
  store_id?: string | null;

  @StringOf(['query_string'])
  substitution?: string;

  @StringOf(['query_regex'])
  @Check(
    're2',
    'value_error',
    (v) => `Invalid regular expression (RE2 syntax): ${regexError(v)}`,
    (v, dto) => dto.type !== 'query_regex' || regexError(v) === null,
  )
  pattern?: string;

  @StringOf(['query_regex'])
  replacement?: string;

  @Check(
    'flags',
    'enum',
    `Flags are a list of ${REGEX_FLAGS.join(', ')}`,
    (v, dto) =>
      dto.type !== 'query_regex' ||
      v === undefined ||
      v === null ||
      (Array.isArray(v) && v.every((f) => (REGEX_FLAGS as readonly unknown[]).includes(f))),
  )
  flags?: RegexFlag[] | null;

  @StringOf(PIN_TYPES)
  file_id?: string;

  @PinIndex({ optionalFor: 'file_search_result', nullIsAbsent: true })
  chunk_index?: number;

  @PinIndex({ nullIsAbsent: false })
  result_index?: number;

  /** The entry as stored, with the parent's `query` and `store_id` where it names none. */
  toEntry(parent: { query: string; storeId: string }): SearchRuleEntry {
    const common = { query: this.query ?? parent.query, store_id: this.store_id ?? parent.storeId };
    switch (this.type) {
      case 'query_string':
        return { type: this.type, ...common, substitution: this.substitution! };
      case 'query_regex':
        return {
          type: this.type,
          ...common,
          pattern: this.pattern!,
          replacement: this.replacement!,
          flags: this.flags ?? [],
        };
      default:
        return {
          type: this.type,
          ...common,
          file_id: this.file_id!,
          chunk_index: this.chunk_index ?? 0,
          result_index: this.result_index!,
        };
    }
  }
}

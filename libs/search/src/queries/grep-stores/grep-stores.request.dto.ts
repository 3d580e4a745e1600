import { Check, OptionalBoolean, Problems, Required, LIMITS } from '@larder/kernel';
import { CommonParams, StoreQueryRequestDto } from '../../store-query.request.dto';

export const GREP_TARGETS = ['text', 'generated'] as const;

export interface GrepStoresParams extends CommonParams {
  pattern: string;
  targets: string[];
  caseSensitive: boolean;
  returnMetadata: boolean;
}

/** `StoreGrepParams`: an RE2 pattern over chunk text. */
export class GrepStoresRequestDto extends StoreQueryRequestDto {
  @Required(true)
  @Check('isString', 'string_type', 'Input should be a valid string', (v) => v === undefined || typeof v === 'string')
  @Check(
    'length',
    'string_too_long',
    `String should have 1 to ${LIMITS.patternChars} characters`,
    (v) => typeof v !== 'string' || (v.length >= 1 && v.length <= LIMITS.patternChars),
  )
  pattern!: string;

  @Check(
    'targets',
    'enum',
    "Input should be a non-empty list of 'text' and 'generated'",
    (v) =>
      v === undefined ||
      v === null ||
      (Array.isArray(v) && v.length > 0 && v.every((t) => (GREP_TARGETS as readonly unknown[]).includes(t))),
  )
  targets?: string[] | null;

  @OptionalBoolean()
  case_sensitive?: boolean | null;

  @OptionalBoolean()
  return_metadata?: boolean | null;

  params(): GrepStoresParams {
    const p = new Problems();
    const common = this.common(p);
    p.throwIfAny();
    return {
      ...common,
      pattern: this.pattern,
      targets: this.targets ?? ['text'],
      caseSensitive: this.case_sensitive ?? false,
      returnMetadata: this.return_metadata ?? true,
    };
  }
}

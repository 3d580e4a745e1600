import { Problems } from '@larder/kernel';

/**
 * Readers of optional top-level body fields that report a wrong value to `p` at `["body", field]`: each
 * answers null when the field is absent (undefined or null) or wrong.
 */
export function bodyFieldReaders(p: Problems) {
  /** A finite number (an integer with `int`) from min to max. */
  const num = (v: unknown, field: string, min: number, max: number, int = false): number | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || (int && !Number.isInteger(v)))
      p.add(
        ['body', field],
        int ? 'Input should be a valid integer' : 'Input should be a valid number',
        int ? 'int_type' : 'float_type',
        v,
      );
    else if (v < min || v > max)
      p.add(
        ['body', field],
        `Input should be between ${min} and ${max}`,
        v < min ? 'greater_than_equal' : 'less_than_equal',
        v,
      );
    else return v;
    return null;
  };
  const bool = (v: unknown, field: string): boolean | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'boolean') p.add(['body', field], 'Input should be a valid boolean', 'bool_type', v);
    return typeof v === 'boolean' ? v : null;
  };
  /** A string of 1 to max characters. */
  const str = (v: unknown, field: string, max: number): string | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string' || !v || v.length > max)
      p.add(['body', field], `Input should be a string of 1 to ${max} characters`, 'string_type', v);
    return typeof v === 'string' && v ? v : null;
  };
  return { num, bool, str };
}

/** The arguments of a hosted tool call as the model sent them: parsed, bounded, and combined with the declared filters. */

/** The model's arguments are unusable: the call fails with `invalid_arguments`, the model reads why. */
export class ToolArgumentsError extends Error {}

/** The call's arguments as a JSON object. */
export const asArgs = (text: string): Record<string, unknown> => {
  let v: unknown;
  try {
    v = JSON.parse(text || '{}');
  } catch {
    throw new ToolArgumentsError('The arguments are not valid JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new ToolArgumentsError('The arguments should be a JSON object');
  return v as Record<string, unknown>;
};
/** An integer argument from 1 up to `max`, `def` when absent or invalid. */
export const intArg = (v: unknown, def: number, max: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 ? Math.min(v, max) : def;

/** The declared filters AND the model's metadata_filters (combined with its filter_mode). */
export function combineFilters(declared: unknown, modelFilters: unknown, mode: unknown): unknown {
  const conditions = Array.isArray(modelFilters) ? modelFilters : [];
  if (!conditions.length) return declared ?? null;
  const own = { [mode === 'any' ? 'any' : 'all']: conditions };
  return declared === null || declared === undefined
    ? own
    : { all: [...(Array.isArray(declared) ? (declared as unknown[]) : [declared]), own] };
}

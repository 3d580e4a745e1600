/** Readers of one environment variable each; a malformed value fails the start with the variable's name. */
export function envReaders(env: NodeJS.ProcessEnv) {
  const int = (name: string, def: number) => {
    const v = env[name];
    if (v === undefined || v === '') return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  /** A decimal in [min, max], or null when unset. */
  const decimal = (name: string, min: number, max: number) => {
    const v = env[name];
    if (v === undefined || v === '') return null;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new Error(`${name} must be a number from ${min} to ${max}, got ${v}`);
    return n;
  };
  const bool = (name: string, def: boolean) => {
    const v = env[name];
    if (v === undefined || v === '') return def;
    return ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
  };
  return { int, decimal, bool };
}

export type EnvReaders = ReturnType<typeof envReaders>;

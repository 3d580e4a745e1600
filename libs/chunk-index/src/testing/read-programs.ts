import type Database from 'better-sqlite3';

// Read programs of the read worker's spec: a worker loads its programs from a module, as the index's are.

/** Counts rows; remembers how many calls it served where it runs. */
export function countProgram(db: Database.Database, input: { spinMs: number }, state: { calls?: number }) {
  const until = Date.now() + input.spinMs;
  while (Date.now() < until) {
    /* a slow read */
  }
  state.calls = (state.calls ?? 0) + 1;
  return { n: (db.prepare(`SELECT count(*) AS n FROM t`).get() as { n: number }).n, calls: state.calls };
}

/** A read of a table that does not exist. */
export const badProgram = (db: Database.Database) => db.prepare(`SELECT * FROM missing`).all();

/** A background program: runs in slices while it returns true. */
export const tick = (_db: Database.Database, _input: unknown, state: { ticks?: number }) => {
  state.ticks = (state.ticks ?? 0) + 1;
  return state.ticks < 3;
};

/** Reads the state the background programs share. */
export const probe = (_db: Database.Database, _input: unknown, state: { ticks?: number }) => state.ticks ?? 0;

/** Slices of up to 300 ms in steps of 5 ms, ending after a step once a message waits (shouldYield). */
export const long = (
  _db: Database.Database,
  _input: unknown,
  state: { ticks?: number },
  shouldYield: () => boolean,
) => {
  const until = Date.now() + 300;
  do {
    const step = Date.now() + 5;
    while (Date.now() < step) {
      /* a step's work */
    }
  } while (Date.now() < until && !shouldYield());
  state.ticks = (state.ticks ?? 0) + 1;
  return state.ticks < 1000;
};

/** A start program: marks the worker's thread, as the lexical warm-up compiles its code there. */
export const start = () => {
  (globalThis as { started?: number }).started = ((globalThis as { started?: number }).started ?? 0) + 1;
};

/** Answers how often the start program ran in the worker's thread. */
export const started = () => (globalThis as { started?: number }).started ?? 0;

/** A start program that fails. */
export const failingStart = () => {
  throw new Error('start failed');
};

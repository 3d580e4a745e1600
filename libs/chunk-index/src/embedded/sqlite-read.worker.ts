import Database from 'better-sqlite3';
import { MessagePort, parentPort, receiveMessageOnPort, workerData } from 'worker_threads';
import type { ReadProgram, ReadWorkerData } from './sqlite-read-worker';
import { cacheSizePragma } from './sqlite.schema';

// The thread of SqliteReadWorker: a read-only connection to the index file that runs the read programs
// it is sent, and, between them, the background program in slices.
type BackgroundProgram = (db: Database.Database, input: unknown, state: object, shouldYield: () => boolean) => boolean;
type Message = { id: number; program: string; input: unknown; idle?: undefined } | { idle: true };

const port: MessagePort = parentPort!;
const data = workerData as ReadWorkerData;
const db = new Database(data.path, { readonly: true, fileMustExist: true });
db.pragma(cacheSizePragma(data.pageCacheBytes));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = <T>(module: string, name: string) => (require(module) as Record<string, T>)[name];
const programs: Record<string, ReadProgram> = {};
for (const [name, p] of Object.entries(data.programs)) programs[name] = load<ReadProgram>(p.module, p.name);
const state: Record<string, object> = {};
// messages taken while a background slice ran (it asked whether a query waits: shouldYield), handled right after it
const taken: Message[] = [];
let beginIdle = () => {};

const handle = (m: Message) => {
  if (m.idle) return beginIdle();
  try {
    // one snapshot per program run: its statements all see the same committed state
    const shared = data.programs[m.program]?.state ?? m.program;
    const result = db.transaction(() => programs[m.program](db, m.input, (state[shared] ??= {})))();
    port.postMessage({ id: m.id, result });
  } catch (err) {
    port.postMessage({ id: m.id, error: String((err as Error)?.message || err) });
  }
};

const shouldYield = () => {
  if (taken.length) return true;
  const m = receiveMessageOnPort(port);
  if (!m) return false;
  taken.push(m.message as Message);
  return true;
};

// A background program (the lexical preload) runs in slices, each in a read transaction of its own, while
// it returns true; a slice runs only when no query's message waits (messages are taken between slices, and
// a slice ends after its current step once one comes: shouldYield). Deferred (idleLater), it begins with an
// 'idle' message, or after idleLater ms without one.
const idle = data.idle;
if (idle) {
  const fn = load<BackgroundProgram>(idle.module, idle.name);
  const slice = () => {
    let more: boolean;
    try {
      more = db.transaction(() => fn(db, idle.input, (state[idle.state] ??= {}), shouldYield))();
    } catch {
      more = false; // a failed slice ends the program
    }
    while (taken.length) handle(taken.shift()!);
    if (more) setImmediate(slice);
  };
  let begun = false;
  beginIdle = () => {
    if (begun) return;
    begun = true;
    setImmediate(slice);
  };
  if (data.idleLater) setTimeout(beginIdle, data.idleLater).unref();
  else beginIdle();
}
// (before the first program: the lexical code compiled on a store of its own; a failure only leaves it uncompiled)
if (data.start)
  try {
    load<() => unknown>(data.start.module, data.start.name)();
  } catch {
    // nothing to undo
  }
port.on('message', handle);
port.postMessage({ ready: true });

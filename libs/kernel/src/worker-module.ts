import { join } from 'path';
import { Worker, WorkerOptions } from 'worker_threads';

/**
 * A worker thread that runs one module of this code base, given by its resolved path
 * (`require.resolve('./x.worker')`). Compiled, that is the module's `.js` file in dist/, and the thread
 * inherits the process's `-r ./tools/paths.js`, which resolves `@larder/*`. Run from the TypeScript
 * sources (the tests), it is the `.ts` file: the thread first loads the swc register hook, which compiles
 * each `.ts` module on load and resolves `@larder/*` to the sources.
 */
export function moduleWorker(file: string, options: WorkerOptions = {}): Worker {
  if (!file.endsWith('.ts')) return new Worker(file, options);
  const register = join(__dirname, 'testing', 'ts-register.js');
  return new Worker(file, { ...options, execArgv: [...(options.execArgv ?? process.execArgv), '--require', register] });
}

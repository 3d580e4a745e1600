import { ChildProcess, spawn } from 'child_process';
import { createServer } from 'net';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  baseURL: string;
  output(): string;
  kill9(): void;
  stop(): Promise<void>;
}

/** Starts the compiled server (`npm run build` first) as its own process, as `npm start` would. */
export async function startServerProcess(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/api/src/main.js')], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', PORT: String(port), HOST: '127.0.0.1', LARDER_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${baseURL}/`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    baseURL,
    output: () => out,
    kill9: () => child.kill('SIGKILL'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Starts the compiled worker (`npm run start:worker`) as its own process; resolves once it runs its loops. */
export async function startWorkerProcess(env: Record<string, string>): Promise<Omit<ServerProcess, 'baseURL'>> {
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/worker/src/main.js')],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', LARDER_LOG_LEVEL: 'log', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!out.includes('running projections, reactors and ingestion')) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker did not start within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    kill9: () => child.kill('SIGKILL'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

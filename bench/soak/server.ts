import { ChildProcess, spawn } from 'child_process';
import { createWriteStream, WriteStream } from 'fs';
import { join } from 'path';
import { waitForServer } from '../support';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * The embedded default server (`node -r ./tools/paths.js dist/apps/api/src/main.js`) on its own data
 * directory and port, started, killed with SIGKILL and started again on the same data; its output
 * goes to `log` (appended across starts).
 */
export class SoakServer {
  private child: ChildProcess | null = null;
  private readonly log: WriteStream;
  readonly base: string;
  /** Ms each start took, from spawning to the first answer to `GET /`. */
  readonly starts: number[] = [];

  constructor(
    private readonly env: Record<string, string>,
    port: number,
    readonly logPath: string,
  ) {
    this.base = `http://127.0.0.1:${port}`;
    this.log = createWriteStream(logPath, { flags: 'a' });
    this.env = { ...env, PORT: String(port), HOST: '127.0.0.1' };
  }

  /**
   * Starts the server and waits for its first answer to `GET /`. A process that ends while it starts
   * (something else on the machine signalled it) is started again, twice at most.
   */
  async start(): Promise<void> {
    const t0 = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.spawnOnce();
        this.starts.push(performance.now() - t0);
        return;
      } catch (err) {
        if (attempt === 3) throw err;
        this.log.write(`\n--- ${(err as Error).message}: starting again\n`);
      }
    }
  }

  private async spawnOnce(): Promise<void> {
    const { NODE_OPTIONS: _, ...inherited } = process.env;
    const child = spawn(
      process.execPath,
      ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/api/src/main.js')],
      {
        cwd: ROOT,
        env: { ...inherited, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.log.write(`\n--- start at ${new Date().toISOString()} (pid ${child.pid})\n`);
    child.stdout.pipe(this.log, { end: false });
    child.stderr.pipe(this.log, { end: false });
    this.child = child;
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) while starting`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForServer(this.base, 120), exited]);
  }

  /** `kill -9`, resolved once the process is gone. */
  kill9(): Promise<void> {
    return this.end('SIGKILL');
  }

  /** A clean stop (SIGTERM: the server drains and flushes), SIGKILL after 30 s. */
  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  private end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => (clearTimeout(force), resolve()));
      child.kill(signal);
    });
  }

  close(): void {
    this.log.end();
  }
}

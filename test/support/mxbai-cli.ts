import { spawn } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';

/** The published `@mixedbread/cli` package, unchanged, as installed from the registry (a devDependency). */
const PACKAGE_JSON = require.resolve('@mixedbread/cli/package.json');
const PACKAGE = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string; bin: Record<string, string> };

/** `mxbai`'s executable, from the package's own `bin` entry. */
export const MXBAI_BIN = join(dirname(PACKAGE_JSON), PACKAGE.bin.mxbai);
export const MXBAI_VERSION = PACKAGE.version;

export interface CliResult {
  /** The exit code; null when the process was killed (see `timedOut`). */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The command line, for failure messages. */
  command: string;
}

export interface CliRunOptions {
  /** Working directory (the CLI globs upload patterns relative to it). */
  cwd?: string;
  /** Extra environment: `MXBAI_API_KEY`, `MXBAI_BASE_URL`, `MIXEDBREAD_BASE_URL`, ... */
  env?: Record<string, string>;
  /** Killed (SIGKILL) after this long; default 120 s. */
  timeoutMs?: number;
}

/**
 * A user's machine for the `mxbai` CLI: its own HOME (so its config, `~/.config/mixedbread/config.json`,
 * starts empty and nothing of the machine's leaks in), and a clean environment: PATH, HOME,
 * XDG_CONFIG_HOME, no colours, no terminal. Without a TTY the CLI skips its npm update check, so it
 * never reaches the internet; every request goes to the base URL it is given.
 */
export class MxbaiCli {
  readonly home = mkdtempSync(join(tmpdir(), 'larder-mxbai-home-'));

  constructor(private readonly defaults: { env?: Record<string, string> } = {}) {}

  /** Runs `mxbai <args>` as a user would (`node <bin> <args>`), collecting stdout, stderr and the exit code. */
  run(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, '.config'),
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      ...this.defaults.env,
      ...options.env,
    };
    const command = `mxbai ${args.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [MXBAI_BIN, ...args], {
        cwd: options.cwd ?? this.home,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, timedOut, command });
      });
    });
  }

  /** Runs `mxbai <args>` and requires exit code 0; the message of a failure holds the whole output. */
  async ok(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
    const r = await this.run(args, options);
    if (r.code !== 0) throw new Error(explain(r));
    return r;
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

export function explain(r: CliResult): string {
  return `${r.command} exited ${r.timedOut ? 'by timeout' : r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/** The CLI prints `[Using API key: mxb_abc...wxyz from MXBAI_API_KEY]` on stdout before its output. */
const KEY_LINE = /^\[Using API key: [^\n]*\]$/m;

/** The stdout of a command run with `--format json`, parsed (the key-usage line taken off). */
export function jsonOutput<T = unknown>(r: CliResult): T {
  const text = r.stdout.replace(KEY_LINE, '').trim();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON output:\n${explain(r)}`);
  }
}

/** `mxbai store qa ... --format json` prints `Answer:`, the answer, then `Sources:` and the sources as JSON. */
export function qaOutput(r: CliResult): { answer: string; sources: Array<Record<string, unknown>> } {
  const text = r.stdout.replace(KEY_LINE, '').trim();
  if (!text.startsWith('Answer:\n')) throw new Error(`not a qa answer:\n${explain(r)}`);
  const at = text.lastIndexOf('\n\nSources:\n');
  if (at < 0) return { answer: text.slice('Answer:\n'.length), sources: [] };
  try {
    return {
      answer: text.slice('Answer:\n'.length, at),
      sources: JSON.parse(text.slice(at + '\n\nSources:\n'.length)) as Array<Record<string, unknown>>,
    };
  } catch {
    throw new Error(`qa sources are not JSON:\n${explain(r)}`);
  }
}

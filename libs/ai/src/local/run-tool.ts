import { execFile } from 'child_process';
import { accessSync, constants } from 'fs';
import { delimiter, isAbsolute, join } from 'path';

/** Why an external program did not give its output. */
export class ToolError extends Error {
  constructor(
    message: string,
    /** `timeout`: killed after its time ran out (or the signal aborted it); `failed`: it exited non-zero or wrote too much. */
    readonly reason: 'timeout' | 'failed',
  ) {
    super(message);
  }
}

export interface ToolLimits {
  /** The program is killed (SIGKILL) after this long. */
  timeoutMs: number;
  /** Most bytes read of its stdout and of its stderr; it is killed beyond them. */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/**
 * Runs a program without a shell (`execFile`: the arguments are never interpreted) and gives its
 * stdout and stderr. A non-zero exit, a kill, or output beyond the limit rejects with a `ToolError`
 * whose message ends with the last lines of its stderr.
 */
export function runTool(
  program: string,
  args: string[],
  limits: ToolLimits,
): Promise<{ stdout: string; stderr: string }> {
  limits.signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      {
        timeout: limits.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: limits.maxOutputBytes,
        signal: limits.signal,
        windowsHide: true,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const name = program.split('/').pop();
        const tail = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
        if (e.name === 'AbortError') return reject(limits.signal?.reason instanceof Error ? limits.signal.reason : e);
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return reject(new ToolError(`${name} wrote more than ${limits.maxOutputBytes} bytes`, 'failed'));
        if (e.killed)
          return reject(new ToolError(`${name} took longer than ${limits.timeoutMs} ms and was stopped`, 'timeout'));
        reject(new ToolError(`${name} failed (${String(e.code ?? e.message)})${tail ? `: ${tail}` : ''}`, 'failed'));
      },
    );
  });
}

/** The absolute path of an executable: `name` itself when it has a slash, else the first match on PATH; null when none. */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | null {
  const candidates = name.includes('/')
    ? [name]
    : path
        .split(delimiter)
        .filter(isAbsolute)
        .map((d) => join(d, name));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

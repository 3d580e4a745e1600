import { spawn } from 'child_process';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { createServer, Server } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..');

/** Runs the compiled server until it exits; its exit code and everything it wrote. */
function runServer(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['-r', join(ROOT, 'tools/paths.js'), join(ROOT, 'dist/apps/api/src/main.js')], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', LARDER_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}

describe('a server whose port is taken', () => {
  let held: Server;
  let port: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-port-'));

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/apps/api/src/main.js')))
      throw new Error('run `npm run build` first (npm test does)');
    held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    port = (held.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => held.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends with exit code 1 and one line that says so and names PORT, no stack trace', async () => {
    const { code, output } = await runServer({ PORT: String(port), HOST: '127.0.0.1', LARDER_DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      `Larder cannot listen on 127.0.0.1:${port}: the port is in use. Stop what holds it, or set PORT to a free port.`,
    ]);
  });
});

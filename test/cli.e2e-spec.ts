import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';
import { CliResult, explain, jsonOutput, MxbaiCli, MXBAI_VERSION, qaOutput } from './support/mxbai-cli';

jest.setTimeout(300_000);

const DOCS: Record<string, string> = {
  'strawberry-jam.md':
    '# Strawberry jam\n\nHull two kilograms of strawberries, add sugar and lemon juice, and boil until the jam sets on a cold plate.\n\n## Jars\n\nFill sterilised jars while hot and seal them.\n',
  'sauerkraut.txt': 'Sauerkraut: shred white cabbage, mix it with two percent salt and press it into a crock. Lactic fermentation turns it sour in three weeks.\n',
  'cellar-log.md': '# Cellar log\n\nMonday 11 degrees, Tuesday 12 degrees. The humidity sensor reported error code E17 twice.\n',
};

/** `<cite i="2"/>` or `<cite i="0-1"/>`: a 0-based index (or range) into the answer's sources; mgrep's extractSources reads exactly this. */
const CITE = /<cite i="(\d+)(?:-(\d+))?"\s*\/>/g;

/**
 * The published `mxbai` CLI (`@mixedbread/cli`, unchanged) against a fresh Larder started as `npm start`
 * starts it: embedded PostgreSQL in a new data directory, the root key read from `<data dir>/root-key`,
 * then used the way the README says (`MXBAI_API_KEY`), with the base URL given each way the CLI
 * reads it: the `--base-url` flag, `MXBAI_BASE_URL`, and `MIXEDBREAD_BASE_URL` (which the SDK inside the
 * CLI reads when neither is set).
 */
describe(`the mxbai CLI ${MXBAI_VERSION} against a fresh Larder`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-cli-data-'));
  const docsDir = mkdtempSync(join(tmpdir(), 'larder-cli-docs-'));
  let server: ServerProcess;
  let cli: MxbaiCli;
  let baseURL: string;
  let storeId: string;

  /** `mxbai <args> --format json` with the key in MXBAI_API_KEY and the base URL in MXBAI_BASE_URL. */
  const mxbai = (args: string[], env: Record<string, string> = {}) => cli.ok([...args, '--format', 'json'], { cwd: docsDir, env: { MXBAI_BASE_URL: baseURL, ...env } });

  beforeAll(async () => {
    for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(docsDir, name), text);
    server = await startServerProcess({ LARDER_DATA_DIR: dataDir }, await freePort());
    baseURL = server.baseURL;
    const rootKey = readFileSync(join(dataDir, 'root-key'), 'utf8').trim();
    cli = new MxbaiCli({ env: { MXBAI_API_KEY: rootKey } });
  });
  afterAll(async () => {
    await server?.stop();
    cli?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(docsDir, { recursive: true, force: true });
  });

  it('is the published CLI', async () => {
    const r = await cli.ok(['--version']);
    expect(r.stdout.trim()).toBe(MXBAI_VERSION);
  });

  it('mxbai store create (base URL from --base-url)', async () => {
    const r = await cli.ok(['store', 'create', 'handbook', '--description', 'kitchen notes', '--metadata', '{"team":"kitchen"}', '--base-url', baseURL, '--format', 'json']);
    const store = jsonOutput<Record<string, unknown>>(r);
    expect(store).toMatchObject({ name: 'handbook', description: 'kitchen notes', is_public: false, metadata: { team: 'kitchen' }, expires_after: null });
    expect(typeof store.id).toBe('string');
    storeId = store.id as string;

    // the base URL the README exports (MIXEDBREAD_BASE_URL) reaches the same server
    const listed = jsonOutput<Array<Record<string, unknown>>>(await cli.ok(['store', 'list', '--format', 'json'], { env: { MIXEDBREAD_BASE_URL: baseURL } }));
    expect(listed.map((s) => s.name)).toEqual(['handbook']);
  });

  it('mxbai store upload, then the files are ingested', async () => {
    const r = await cli.ok(['store', 'upload', 'handbook', '*.md', '*.txt'], { cwd: docsDir, env: { MXBAI_BASE_URL: baseURL } });
    expect(r.stdout).toContain(`${Object.keys(DOCS).length} files uploaded successfully`);
    expect(r.stdout + r.stderr).not.toMatch(/failed/);

    // wait as a user would: `mxbai store get` until every file is completed
    let store: Record<string, unknown>;
    for (;;) {
      store = jsonOutput(await mxbai(['store', 'get', 'handbook']));
      if (store['total files'] === Object.keys(DOCS).length && store['completed files'] === store['total files']) break;
      expect(store['failed files']).toBe(0);
      await new Promise((res) => setTimeout(res, 500));
    }
    expect(store).toMatchObject({ id: storeId, name: 'handbook', 'processing files': 0, 'failed files': 0 });

    const files = jsonOutput<Array<Record<string, unknown>>>(await mxbai(['store', 'files', 'list', 'handbook']));
    expect(files.map((f) => f.name).sort()).toEqual(Object.keys(DOCS).sort());
    for (const f of files) {
      expect(f.status).toBe('completed');
      // the CLI sends each file's relative path as metadata
      expect(f.metadata).toMatchObject({ file_path: f.name });
    }
  });

  it('mxbai store search: chunks, the relevant file first', async () => {
    const results = jsonOutput<Array<Record<string, unknown>>>(await mxbai(['store', 'search', 'handbook', 'how do I make strawberry jam', '--top-k', '3', '--return-metadata']));
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]).toMatchObject({ filename: 'strawberry-jam.md', store_id: storeId, chunk_index: 0, metadata: { file_path: 'strawberry-jam.md' } });
    for (const c of results) {
      const score = Number(c.score);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }

    const sour = jsonOutput<Array<Record<string, unknown>>>(await mxbai(['store', 'search', storeId, 'fermented cabbage', '--top-k', '1']));
    expect(sour.map((c) => c.filename)).toEqual(['sauerkraut.txt']);
  });

  it('mxbai store search --file-search: files, the relevant file first', async () => {
    const results = jsonOutput<Array<Record<string, unknown>>>(await mxbai(['store', 'search', 'handbook', 'fermented cabbage', '--file-search', '--top-k', '3', '--return-metadata']));
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]).toMatchObject({ filename: 'sauerkraut.txt', store_id: storeId, metadata: { file_path: 'sauerkraut.txt' } });
    expect(new Set(results.map((f) => f.filename)).size).toBe(results.length);
    for (const f of results) {
      const score = Number(f.score);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('mxbai store qa: an answer that cites its sources with <cite i="N"/>', async () => {
    const { answer, sources } = qaOutput(await mxbai(['store', 'qa', 'handbook', 'How long does sauerkraut take to ferment?', '--top-k', '3']));
    expect(answer.trim()).not.toBe('');
    expect(answer).toMatch(/three weeks/i);
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.length).toBeLessThanOrEqual(3);
    expect(sources[0]).toMatchObject({ filename: 'sauerkraut.txt', chunk_index: 0 });

    const cites = [...answer.matchAll(CITE)];
    expect(cites.length).toBeGreaterThan(0);
    const cited = new Set<number>();
    for (const [, from, to] of cites) {
      const [a, b] = [Number(from), Number(to ?? from)];
      expect(b).toBeGreaterThanOrEqual(a);
      expect(b).toBeLessThan(sources.length);
      for (let i = a; i <= b; i++) cited.add(i);
    }
    expect([...cited].map((i) => sources[i].filename)).toContain('sauerkraut.txt');
  });

  it('errors reach the user as messages and exit code 1: a wrong key, an unknown store', async () => {
    const wrong: CliResult = await cli.run(['store', 'list'], { env: { MXBAI_BASE_URL: baseURL, MXBAI_API_KEY: 'lrd_not-a-key-of-this-server' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('401');

    const missing = await cli.run(['store', 'search', 'no-such-store', 'jam'], { env: { MXBAI_BASE_URL: baseURL } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Store "no-such-store" not found');
  });

  it('mxbai store delete', async () => {
    await cli.ok(['store', 'delete', 'handbook', '--yes'], { env: { MXBAI_BASE_URL: baseURL } });
    const r = await cli.run(['store', 'get', storeId, '--format', 'json'], { env: { MXBAI_BASE_URL: baseURL } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/404|not found/i);
    expect(explain(r)).not.toContain('"name": "handbook"');
  });
});

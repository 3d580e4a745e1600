import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { freePort, startServerProcess, ServerProcess } from './support/server-process';
import { CliResult, explain, jsonOutput, MxbaiCli, MXBAI_VERSION, qaOutput } from './support/mxbai-cli';

jest.setTimeout(300_000);

const DOCS: Record<string, string> = {
  'strawberry-jam.md':
    '# Strawberry jam\n\nHull two kilograms of strawberries, add sugar and lemon juice, and boil until the jam sets on a cold plate.\n\n## Jars\n\nFill sterilised jars while hot and seal them.\n',
  'sauerkraut.txt':
    'Sauerkraut: shred white cabbage, mix it with two percent salt and press it into a crock. Lactic fermentation turns it sour in three weeks.\n',
  'cellar-log.md':
    '# Cellar log\n\nMonday 11 degrees, Tuesday 12 degrees. The humidity sensor reported error code E17 twice.\n',
};

/** `<cite i="2"/>` or `<cite i="0-1"/>`: a 0-based index (or range) into the answer's sources; mgrep's extractSources reads exactly this. */
const CITE = /<cite i="(\d+)(?:-(\d+))?"\s*\/>/g;

/**
 * The published `mxbai` CLI (`@mixedbread/cli`, unchanged) against a fresh Larder started as `npm start`
 * starts it: embedded PostgreSQL in a new data directory, the root key read from `<data dir>/root-key`,
 * then used the way the README says (`MXBAI_API_KEY`), with the base URL given each way the CLI
 * reads it: the `--base-url` flag, `MXBAI_BASE_URL`, and `MIXEDBREAD_BASE_URL` (which the SDK inside the
 * CLI reads when neither is set). Then as a user who saved the key in the CLI's config
 * (`mxbai config keys add`, `config set base_url`) with nothing in the environment, names a saved key
 * with `--saved-key`, or gives one with `--api-key`: the CLI takes only `mxb_` keys there.
 */
describe(`the mxbai CLI ${MXBAI_VERSION} against a fresh Larder`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-cli-data-'));
  const docsDir = mkdtempSync(join(tmpdir(), 'larder-cli-docs-'));
  let server: ServerProcess;
  let cli: MxbaiCli;
  let baseURL: string;
  let storeId: string;

  /** `mxbai <args> --format json` with the key in MXBAI_API_KEY and the base URL in MXBAI_BASE_URL. */
  const mxbai = (args: string[], env: Record<string, string> = {}) =>
    cli.ok([...args, '--format', 'json'], { cwd: docsDir, env: { MXBAI_BASE_URL: baseURL, ...env } });

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
    const r = await cli.ok([
      'store',
      'create',
      'handbook',
      '--description',
      'kitchen notes',
      '--metadata',
      '{"team":"kitchen"}',
      '--base-url',
      baseURL,
      '--format',
      'json',
    ]);
    const store = jsonOutput<Record<string, unknown>>(r);
    expect(store).toMatchObject({
      name: 'handbook',
      description: 'kitchen notes',
      is_public: false,
      metadata: { team: 'kitchen' },
      expires_after: null,
    });
    expect(typeof store.id).toBe('string');
    storeId = store.id as string;

    // the base URL the README exports (MIXEDBREAD_BASE_URL) reaches the same server
    const listed = jsonOutput<Array<Record<string, unknown>>>(
      await cli.ok(['store', 'list', '--format', 'json'], { env: { MIXEDBREAD_BASE_URL: baseURL } }),
    );
    expect(listed.map((s) => s.name)).toEqual(['handbook']);
  });

  it('mxbai store upload, then the files are ingested', async () => {
    const r = await cli.ok(['store', 'upload', 'handbook', '*.md', '*.txt'], {
      cwd: docsDir,
      env: { MXBAI_BASE_URL: baseURL },
    });
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
    const results = jsonOutput<Array<Record<string, unknown>>>(
      await mxbai(['store', 'search', 'handbook', 'how do I make strawberry jam', '--top-k', '3', '--return-metadata']),
    );
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]).toMatchObject({
      filename: 'strawberry-jam.md',
      store_id: storeId,
      chunk_index: 0,
      metadata: { file_path: 'strawberry-jam.md' },
    });
    for (const c of results) {
      const score = Number(c.score);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }

    const sour = jsonOutput<Array<Record<string, unknown>>>(
      await mxbai(['store', 'search', storeId, 'fermented cabbage', '--top-k', '1']),
    );
    expect(sour.map((c) => c.filename)).toEqual(['sauerkraut.txt']);
  });

  it('mxbai store search --file-search: files, the relevant file first', async () => {
    const results = jsonOutput<Array<Record<string, unknown>>>(
      await mxbai([
        'store',
        'search',
        'handbook',
        'fermented cabbage',
        '--file-search',
        '--top-k',
        '3',
        '--return-metadata',
      ]),
    );
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]).toMatchObject({
      filename: 'sauerkraut.txt',
      store_id: storeId,
      metadata: { file_path: 'sauerkraut.txt' },
    });
    expect(new Set(results.map((f) => f.filename)).size).toBe(results.length);
    for (const f of results) {
      const score = Number(f.score);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('mxbai store qa: an answer that cites its sources with <cite i="N"/>', async () => {
    const { answer, sources } = qaOutput(
      await mxbai(['store', 'qa', 'handbook', 'How long does sauerkraut take to ferment?', '--top-k', '3']),
    );
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
    const wrong: CliResult = await cli.run(['store', 'list'], {
      env: { MXBAI_BASE_URL: baseURL, MXBAI_API_KEY: 'lrd_not-a-key-of-this-server' },
    });
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

  describe('with saved keys and --api-key (nothing in the environment)', () => {
    /** A second user's machine: its own HOME and config, no MXBAI_* variables at all. */
    let user: MxbaiCli;
    let rootKey: string;
    const configDir = () => join(user.home, '.config', 'mixedbread');
    const savedConfig = () =>
      JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8')) as {
        api_keys?: Record<string, string>;
        base_url?: string;
        defaults?: { api_key?: string };
      };
    const as = (args: string[]) => user.ok([...args, '--format', 'json'], { cwd: docsDir });
    /** A key of the root organization, made over HTTP as an operator would (the CLI has no key management). */
    const createKey = async (body: Record<string, unknown>) => {
      const res = await fetch(`${baseURL}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; value: string };
    };

    beforeAll(() => {
      user = new MxbaiCli();
      rootKey = readFileSync(join(dataDir, 'root-key'), 'utf8').trim();
    });
    afterAll(() => user?.cleanup());

    it('the keys Larder issues have the form the CLI takes; an lrd_ key is refused by the CLI itself', async () => {
      expect(rootKey).toMatch(/^mxb_[A-Za-z0-9]{43}$/);
      const legacy = await user.run(['config', 'keys', 'add', 'lrd_an-older-larder-key', 'legacy']);
      expect(legacy.stdout + legacy.stderr).toContain('API key must start with "mxb_"');
      expect(existsSync(join(configDir(), 'config.json'))).toBe(false);
      const flag = await user.run(['store', 'list', '--api-key', 'lrd_an-older-larder-key', '--base-url', baseURL]);
      expect(flag.code).toBe(1);
      expect(flag.stderr).toContain("API keys must start with 'mxb_'");
    });

    it('mxbai config set base_url and config keys add: the key is saved, made the default and used at once', async () => {
      await user.ok(['config', 'set', 'base_url', baseURL]);
      const added = await user.ok(['config', 'keys', 'add', rootKey, 'work']);
      expect(added.stdout + added.stderr).toContain('API key "work" saved and set as default');
      expect(savedConfig()).toMatchObject({
        base_url: baseURL,
        api_keys: { work: rootKey },
        defaults: { api_key: 'work' },
      });
      // adding a key lists the stores with it (the CLI's completion cache): a real request with the saved key
      const cache = JSON.parse(readFileSync(join(configDir(), 'completion-cache.json'), 'utf8')) as {
        stores: Record<string, string[]>;
      };
      expect(cache.stores.work).toEqual([]);
      const listed = await user.ok(['config', 'keys', 'list']);
      expect(listed.stdout).toMatch(/\* work \(default\)/);
    });

    it('store workflows run with the saved default key: create, upload, get, files, search, qa, delete', async () => {
      const created = await as(['store', 'create', 'pantry', '--description', 'saved-key store']);
      expect(created.stdout).toMatch(/\[Using API key: work \(mxb_[A-Za-z0-9]{3}\.\.\.[A-Za-z0-9]{4}\) from config\]/);
      const store = jsonOutput<Record<string, unknown>>(created);
      expect(store).toMatchObject({ name: 'pantry', description: 'saved-key store' });

      const up = await user.ok(['store', 'upload', 'pantry', '*.md', '*.txt'], { cwd: docsDir });
      expect(up.stdout).toContain(`${Object.keys(DOCS).length} files uploaded successfully`);
      for (;;) {
        const s = jsonOutput<Record<string, unknown>>(await as(['store', 'get', 'pantry']));
        if (s['total files'] === Object.keys(DOCS).length && s['completed files'] === s['total files']) break;
        expect(s['failed files']).toBe(0);
        await new Promise((res) => setTimeout(res, 500));
      }
      const files = jsonOutput<Array<Record<string, unknown>>>(await as(['store', 'files', 'list', 'pantry']));
      expect(files.map((f) => f.name).sort()).toEqual(Object.keys(DOCS).sort());
      const hits = jsonOutput<Array<Record<string, unknown>>>(
        await as(['store', 'search', 'pantry', 'fermented cabbage', '--top-k', '2']),
      );
      expect(hits[0]).toMatchObject({ filename: 'sauerkraut.txt', store_id: store.id });
      const { answer } = qaOutput(await as(['store', 'qa', 'pantry', 'How long does sauerkraut take to ferment?']));
      expect(answer).toMatch(/three weeks/i);
      const listed = jsonOutput<Array<Record<string, unknown>>>(await as(['store', 'list']));
      expect(listed.map((s) => s.name)).toEqual(['pantry']);
    });

    it('--saved-key names another saved key, and the server sees which one was used', async () => {
      // a key that may only read stores: it lists them, and creating one is refused (403) by its scope
      const reader = await createKey({
        name: 'reader',
        scope: [
          { method: 'read', resource_type: 'store' },
          { method: 'list', resource_type: 'store' },
        ],
      });
      expect(reader.value).toMatch(/^mxb_/);
      await user.ok(['config', 'keys', 'add', reader.value, 'reader']);
      await user.ok(['config', 'keys', 'set-default', 'work']);
      expect(savedConfig()).toMatchObject({
        api_keys: { work: rootKey, reader: reader.value },
        defaults: { api_key: 'work' },
      });

      const listed = await as(['store', 'list', '--saved-key', 'reader']);
      expect(listed.stdout).toContain('[Using API key: reader (');
      expect(listed.stdout).toContain('from --saved-key]');
      expect(jsonOutput<Array<Record<string, unknown>>>(listed).map((s) => s.name)).toEqual(['pantry']);
      const refused = await user.run(['store', 'create', 'not-allowed', '--saved-key', 'reader', '--format', 'json']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('403');
      // the default key still may
      jsonOutput(await as(['store', 'create', 'allowed']));
      const unknown = await user.run(['store', 'list', '--saved-key', 'nobody']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No saved API key found with name "nobody"');
    });

    it('--api-key gives a key on the command line; a revoked or unknown mxb_ key is the server’s 401', async () => {
      const extra = await createKey({ name: 'flag' });
      const r = await as(['store', 'search', 'pantry', 'strawberry jam', '--api-key', extra.value, '--top-k', '1']);
      expect(r.stdout).toContain('from --api-key]');
      expect(jsonOutput<Array<Record<string, unknown>>>(r)[0]).toMatchObject({ filename: 'strawberry-jam.md' });

      const revoke = await fetch(`${baseURL}/v1/api-keys/${extra.id}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rootKey}` },
      });
      expect(revoke.status).toBe(200);
      const revoked = await user.run(['store', 'list', '--api-key', extra.value]);
      expect(revoked.code).toBe(1);
      expect(revoked.stderr).toContain('401');
      const made_up = await user.run(['store', 'list', '--api-key', `mxb_${'x'.repeat(43)}`]);
      expect(made_up.code).toBe(1);
      expect(made_up.stderr).toContain('401');
    });

    it('mxbai config keys remove, then the saved key is gone', async () => {
      await user.ok(['config', 'keys', 'remove', 'reader', '--yes']);
      expect(savedConfig().api_keys).toEqual({ work: rootKey });
      await user.ok(['store', 'delete', 'pantry', '--yes']);
      await user.ok(['store', 'delete', 'allowed', '--yes']);
      const left = await as(['store', 'list']);
      expect(left.stdout + left.stderr).toContain('No stores found.');
    });
  });
});

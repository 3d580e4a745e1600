/* eslint-disable @typescript-eslint/no-explicit-any */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runInThisContext } from 'vm';
import { ChatCompletionsDouble, startChatCompletionsDouble } from '@larder/ai/testing/chat-completions-double';
import { startTestLarder, TestLarder } from './support/in-process-larder';

jest.setTimeout(180_000);

/**
 * The README's TypeScript blocks, run as written against a server: a block that does not start with
 * an import continues the block before it (the same program). Imports become requires, the README's
 * address becomes the test server's, and each program runs in an organization of its own, in a
 * folder that holds the files the snippets read.
 */
function programs(readme: string): Array<{ line: number; code: string }> {
  const out: Array<{ line: number; code: string }> = [];
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (lines[end].trim() !== '```') end++;
    const code = lines.slice(start, end).join('\n');
    if (/^import /.test(code) || !out.length) out.push({ line: start, code });
    else out[out.length - 1].code += `\n${code}`;
    i = end;
  }
  return out;
}

/** The program as the body of an async function: imports as requires; answers its top-level constants. */
function runnable(code: string, baseURL: string): string {
  const names = [...code.matchAll(/^const (\w+) =/gm)].map((m) => m[1]);
  const body = code
    .replace(
      /^import (\w+)(?:, \{([^}]+)\})? from '([^']+)';$/gm,
      (_m, def: string, named: string | undefined, mod: string) => {
        const v = `__${def}`;
        return `const ${v} = require('${mod}'); const ${def} = ${v}.default ?? ${v};${named ? ` const {${named}} = ${v};` : ''}`;
      },
    )
    .replaceAll('http://127.0.0.1:8000', baseURL);
  return `(function (require, process) { return (async () => {\n${body}\nreturn { ${names.join(', ')} };\n})(); })`;
}

describe('README: every TypeScript block runs as written against a server', () => {
  let double: ChatCompletionsDouble;
  let t: TestLarder;
  let dir: string;
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const found = programs(readme);

  beforeAll(async () => {
    double = await startChatCompletionsDouble();
    t = await startTestLarder({ env: { LARDER_LLM_URL: double.url, LARDER_LLM_MODEL: 'double-model' } });
    dir = mkdtempSync(join(tmpdir(), 'larder-readme-'));
    copyFileSync(join(__dirname, 'fixtures', 'ingestion', 'report.pdf'), join(dir, 'guide.pdf'));
    writeFileSync(
      join(dir, 'starter.md'),
      '# Sourdough starter\n\nFeed the starter every twelve hours with equal weights of flour and water.\n',
    );
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the programs (the SDK intro, the SDK section, the openai section with the Responses API)', () => {
    expect(found.length).toBeGreaterThanOrEqual(3);
  });

  it.each(found.map((p) => [p.line, p.code] as const))('the program at README line %i runs', async (_line, code) => {
    const { apiKey } = await t.newOrganization('readme');
    const env = { MXBAI_API_KEY: process.env.MXBAI_API_KEY, MIXEDBREAD_BASE_URL: process.env.MIXEDBREAD_BASE_URL };
    const cwd = process.cwd();
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    process.env.MXBAI_API_KEY = apiKey;
    process.env.MIXEDBREAD_BASE_URL = t.baseURL;
    process.chdir(dir);
    try {
      const program = runInThisContext(runnable(code, t.baseURL)) as (
        r: NodeJS.Require,
        p: NodeJS.Process,
      ) => Promise<Record<string, any>>;
      const result = await program(require, process);
      // what the blocks promise
      if (result.file?.status !== undefined) expect(result.file.status).toBe('completed');
      if (result.hits) expect(result.hits.data.length).toBeGreaterThan(0);
      if (result.answer) expect(typeof result.answer.output_text).toBe('string');
    } finally {
      process.chdir(cwd);
      log.mockRestore();
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

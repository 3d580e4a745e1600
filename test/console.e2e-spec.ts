import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { consoleDir } from '../apps/api/src/http/console';

/**
 * The web console in a real headless browser (Debian's Chromium driven by playwright-core) against one
 * in-process server: sign in, stores, uploads (form, drag and drop, multipart) watched until ingested,
 * the search playground, the chunk viewer, activity and cost charts, keys; screenshots of every page
 * go to test/output/console/.
 */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(__dirname, 'output', 'console');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

jest.setTimeout(240_000);

// Browser globals used by the functions the page runs (this project's lib is Node's, not the DOM's).
declare const sessionStorage: { length: number; getItem(key: string): string | null };
declare const localStorage: { length: number };
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const document: { documentElement: { scrollWidth: number }; activeElement: { id: string } | null };
declare class DataTransfer {
  items: { add(file: unknown): void };
}

const FILES = {
  'beans.md':
    '# Vegetables\n\n## Beans\n\nBlanch green beans for three minutes, cool them in ice water, then freeze them flat on a tray before bagging.\n',
  'apricots.txt':
    'Apricots dry well in the sun: halve them, remove the stones and lay them cut side up on racks for four days.',
  'cherries.txt': 'Cherries keep in brandy for a year. Pack them in a jar with sugar and cover them with brandy.',
};

if (!existsSync(CHROMIUM)) {
  // eslint-disable-next-line no-console
  console.warn(
    `Console browser suite SKIPPED: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it).`,
  );
  describe('Web console in a real browser', () => {
    it.skip(`SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium)`, () => undefined);
  });
} else {
  describe('Web console in a real browser', () => {
    let t: TestLarder;
    let key: string;
    let context: BrowserContext;
    let page: Page;
    let profile: string;
    let base: string;
    /** The organization's first key after the console rerolled it. */
    let rerolledKey = '';
    /** Every secret the browser saw, none of which may appear in a URL or a console line. */
    const secrets: string[] = [];
    const requestedUrls: string[] = [];
    const consoleLines: string[] = [];

    const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    /** Retries `check` until it returns true (projections are asynchronous), reloading with `retry` between tries. */
    const eventually = async (
      what: string,
      check: () => Promise<boolean>,
      retry: () => Promise<unknown>,
      ms = 60_000,
    ) => {
      const deadline = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 500));
        await retry();
      }
    };
    const nav = (label: string) =>
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
    const signIn = async (secret: string) => {
      await page.getByLabel('API key', { exact: true }).fill(secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };
    /** Signed in: the menu is there (the page stays on the path it was signed out at). */
    const signedIn = () => page.getByRole('navigation', { name: 'Main' }).waitFor();

    beforeAll(async () => {
      // `npm run build` builds the console; a spec run on its own builds it if it is missing
      if (!existsSync(join(consoleDir(), 'index.html'))) {
        execFileSync('npm', ['run', 'build:console', '--silent'], { cwd: join(__dirname, '..'), stdio: 'inherit' });
      }
      mkdirSync(SHOTS, { recursive: true });
      t = await startTestLarder();
      key = (await t.newOrganization('console')).apiKey;
      secrets.push(key);
      base = t.baseURL;
      profile = mkdtempSync(join(tmpdir(), 'larder-chromium-'));
      // a fresh profile (--user-data-dir) per run; headless, no GPU, no network of its own
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        viewport: { width: 1280, height: 900 },
        permissions: ['clipboard-read', 'clipboard-write'],
        baseURL: base,
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(30_000);
      page.on('request', (r) => requestedUrls.push(r.url()));
      page.on('console', (m) => consoleLines.push(m.text()));
    });

    afterAll(async () => {
      await context?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      await t?.close();
    });

    it('serves the console at /console without a key, with a strict content security policy', async () => {
      const res = await fetch(`${base}/console`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const html = await res.text();
      const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(asset).toBeDefined();
      const js = await fetch(`${base}${asset}`);
      expect(js.status).toBe(200);
      expect(js.headers.get('cache-control')).toMatch(/immutable/);
      // a deep link is the app too (the browser routes it)
      expect((await fetch(`${base}/console/stores/abc`)).status).toBe(200);
      // the page is always sent whole: a Range header, even an unsatisfiable one, is ignored (was a 500)
      const ranged = await fetch(`${base}/console`, { headers: { range: 'bytes=5-1' } });
      expect(ranged.status).toBe(200);
      expect(await ranged.text()).toContain('<html');
      const missing = await fetch(`${base}/console/assets/nope.js`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { type: string } }).error.type).toBe('not_found');
    });

    it('refuses a wrong key with the API’s own error and signs in with a real one', async () => {
      await page.goto('/console');
      await signIn('lrd_not_a_real_key_0000000000000000000000000');
      await page.getByRole('alert').filter({ hasText: 'Sign-in failed' }).waitFor();
      expect(await page.getByRole('alert').textContent()).toMatch(/401/);
      await signIn(key);
      await page.getByRole('heading', { name: 'Stores', level: 1 }).waitFor();
      expect(page.url()).toBe(`${base}/console/stores`);
      expect(await page.evaluate(() => sessionStorage.getItem('larder.console.apiKey'))).toBe(key);
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
    });

    it('creates a store with the keyboard, showing a 422 from the API first', async () => {
      await page.getByRole('button', { name: 'Create store' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Create a store' });
      await dialog.waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('store-name');
      await page.keyboard.type('Not A Valid Name');
      await page.keyboard.press('Enter');
      await dialog.getByRole('alert').waitFor();
      expect(await dialog.getByRole('alert').textContent()).toMatch(/422[\s\S]*name/);
      await dialog.getByLabel('Name').fill('pantry');
      await dialog.getByLabel('Description').fill('Preserving notes');
      await dialog.getByLabel('Expire after days of inactivity (empty: never)').fill('30');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'pantry' }) });
      await row.waitFor();
      expect(await row.textContent()).toContain('30 days inactive');
      await shot('stores');
    });

    it('uploads three files (two by the file picker, one dropped) and a multipart one, and shows their ingestion live', async () => {
      await page.getByRole('link', { name: 'pantry' }).click();
      await page.getByRole('heading', { name: 'pantry', level: 1 }).waitFor();
      await page.getByLabel('Choose files…').setInputFiles([
        { name: 'beans.md', mimeType: 'text/markdown', buffer: Buffer.from(FILES['beans.md']) },
        { name: 'apricots.txt', mimeType: 'text/plain', buffer: Buffer.from(FILES['apricots.txt']) },
      ]);
      const drop = await page.evaluateHandle((text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'cherries.txt', { type: 'text/plain' }));
        return dt;
      }, FILES['cherries.txt']);
      await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: drop });
      // 9 MB of random bytes: above the multipart threshold (two parts), and not a document, so it fails
      await page
        .getByLabel('Choose files…')
        .setInputFiles([
          { name: 'photo.bin', mimeType: 'application/octet-stream', buffer: randomBytes(9 * 1024 * 1024) },
        ]);
      await page.getByRole('progressbar', { name: 'Upload of photo.bin' }).waitFor();
      for (const name of Object.keys(FILES)) {
        await page
          .locator(`tr[data-file="${name}"] .badge`)
          .filter({ hasText: 'completed' })
          .waitFor({ timeout: 120_000 });
      }
      const failed = page.locator('tr[data-file="photo.bin"]');
      await failed.locator('.badge').filter({ hasText: 'failed' }).waitFor({ timeout: 120_000 });
      expect(await failed.textContent()).toMatch(/Unsupported file type[\s\S]*unsupported_file_type/);
      const progress = await page
        .getByRole('progressbar', { name: 'Upload of photo.bin' })
        .evaluate((p: { value: number; max: number }) => [p.value, p.max]);
      expect(progress[0]).toBe(progress[1]);
      // photo.bin went through the multipart upload API: created, two parts PUT to their signed URLs, completed
      const uploads = requestedUrls.filter((u) => u.includes('/v1/files/uploads'));
      expect(uploads.filter((u) => /\/parts\/[12]\?/.test(u)).length).toBe(2);
      expect(uploads.some((u) => u.endsWith('/complete'))).toBe(true);
      const upload = page.getByRole('list', { name: 'Uploads' });
      expect(await upload.textContent()).not.toMatch(/failed/);
      await page.getByRole('heading', { name: 'Files' }).scrollIntoViewIfNeeded();
      await shot('store-files');
    });

    it('runs a search in the playground: the expected file first, matched terms marked, the Server-Timing breakdown', async () => {
      await nav('Search');
      await page.getByRole('checkbox', { name: 'pantry' }).check();
      await page.getByLabel('Query').fill('how do I freeze green beans');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const first = page.locator('.result').first();
      await first.waitFor();
      expect(await first.locator('.filename').textContent()).toBe('beans.md');
      const marks = await first.locator('mark').allTextContents();
      expect(marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['beans', 'freeze', 'green']));
      // Server-Timing is read by the page from the response: its steps are listed with their milliseconds
      await page.locator('tr[data-step="search"]').waitFor();
      expect(await page.locator('tr[data-step="embed"]').count()).toBe(1);
      await shot('search');

      await page.getByRole('radio', { name: 'Grep (regular expression)' }).check();
      await page.getByLabel('Pattern (RE2)').fill('brand(y|ies)');
      await page.getByRole('button', { name: 'Grep', exact: true }).click();
      await page.locator('.result .filename').filter({ hasText: 'cherries.txt' }).waitFor();
      expect(await page.locator('.result').first().locator('mark').allTextContents()).toEqual(['brandy', 'brandy']);
      await page.locator('tr[data-step="grep"]').waitFor();

      await page.getByRole('radio', { name: 'Search' }).check();
      await page.getByRole('checkbox', { name: 'Stream' }).check();
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('A streamed answer sends its headers').waitFor();
      expect(await page.locator('.result').first().locator('.filename').textContent()).toBe('beans.md');
    });

    it('opens a chunk of the first result with its text, headings and metadata, and edits the file’s metadata', async () => {
      await page.getByRole('checkbox', { name: 'Stream' }).uncheck();
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.locator('.result').first().locator('.filename').click();
      await page.getByRole('heading', { name: 'beans.md', level: 1 }).waitFor();
      const chunk = page.locator('.chunks > li').first();
      await chunk.locator('.chunk-text').waitFor();
      expect(await chunk.locator('.chunk-text').textContent()).toContain('Blanch green beans');
      expect(await chunk.textContent()).toMatch(/Headings:\s*Vegetables › Beans/);
      await chunk.getByText('Chunk metadata').click();
      expect(await chunk.textContent()).toContain('"type": "markdown"');
      await page.getByLabel('Metadata').fill('{"shelf": "freezer"}');
      await page.getByRole('button', { name: 'Save metadata' }).click();
      await page.getByText('Saved.').waitFor();
      const files = (await (
        await fetch(`${base}/v1/stores/pantry/files/beans.md`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { metadata: unknown };
      expect(files.metadata).toEqual({ shelf: 'freezer' });
      expect(await page.getByRole('link', { name: 'Download' }).getAttribute('href')).toMatch(/\/content\?/);
      await shot('file');
    });

    it('shows an ingestion event, the store event histogram and a non-empty cost chart', async () => {
      await nav('Activity & costs');
      const events = page.getByTestId('events');
      await eventually(
        'the ingestion events',
        async () => (await events.count()) > 0 && (await events.locator('tr[data-type="ingestion"]').count()) >= 3,
        () => page.getByRole('button', { name: 'Show events' }).click(),
      );
      expect(await events.textContent()).toContain('beans.md');
      const costChart = page.getByTestId('store-cost-chart');
      await eventually(
        'a store cost',
        async () => Number((await costChart.getAttribute('data-total').catch(() => null)) ?? 0) > 0,
        () => page.reload(),
      );
      expect(await costChart.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
      await page.getByTestId('event-histogram').locator('.recharts-bar-rectangle').first().waitFor();
      expect(Number(await page.getByTestId('event-histogram').getAttribute('data-total'))).toBeGreaterThanOrEqual(3);
      expect(await page.getByTestId('gross-cost').textContent()).toMatch(/^\$0\.0+[1-9]/);
      await shot('activity');
    });

    it('creates a key whose secret is shown once with a copy button, rerolls one, and signs out when the key in use is revoked', async () => {
      await nav('API keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      const create = page.getByRole('dialog', { name: 'Create an API key' });
      await create.getByLabel('Name').fill('console-e2e');
      await create.getByRole('button', { name: 'Create key' }).click();
      const secretDialog = page.getByRole('dialog', { name: 'Secret of console-e2e' });
      await secretDialog.waitFor();
      const secret = await secretDialog.getByLabel('Secret').inputValue();
      expect(secret).toMatch(/^mxb_/);
      secrets.push(secret);
      await secretDialog.getByRole('button', { name: 'Copy secret' }).click();
      await secretDialog.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await shot('keys');
      await secretDialog.getByRole('button', { name: 'Done' }).click();
      expect(await page.getByRole('row').filter({ hasText: 'console-e2e' }).textContent()).toContain(secret.slice(-4));
      expect(await page.content()).not.toContain(secret);

      // reroll the organization's first key: a new secret, shown once
      await page.getByRole('button', { name: 'Reroll first key' }).click();
      await page.getByRole('button', { name: 'Reroll key' }).click();
      const rerolled = await page
        .getByRole('dialog', { name: 'New secret of first key' })
        .getByLabel('Secret')
        .inputValue();
      expect(rerolled).not.toBe(key);
      rerolledKey = rerolled;
      secrets.push(rerolled);
      expect((await fetch(`${base}/v1/stores`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      await page.getByRole('button', { name: 'Done' }).click();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(secret);
      await nav('API keys');
      const mine = page.getByRole('row').filter({ hasText: 'console-e2e' });
      await mine.getByText('this session').waitFor();
      await page.getByRole('button', { name: 'Revoke console-e2e' }).click();
      await page.getByText('This is the key this session signed in with.').waitFor();
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.getByRole('status').first().textContent()).toMatch(
        /Signed out: the key this session used \(console-e2e\) was revoked/,
      );
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect((await fetch(`${base}/v1/stores`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
      await shot('signed-out');
    });

    it('signs out on the next 401 when the key is revoked elsewhere', async () => {
      const auth = { authorization: `Bearer ${rerolledKey}`, 'content-type': 'application/json' };
      const other = (await (
        await fetch(`${base}/v1/api-keys`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ name: 'elsewhere' }),
        })
      ).json()) as { id: string; value: string };
      secrets.push(other.value);
      await signIn(other.value);
      await signedIn();
      // revoke the key through the API, behind the console's back: the next call answers 401
      expect((await fetch(`${base}/v1/api-keys/${other.id}/revoke`, { method: 'POST', headers: auth })).status).toBe(
        200,
      );
      await nav('Search');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.getByRole('status').first().textContent()).toMatch(/Signed out: the API key was not accepted/);
    });

    it('is usable at phone width: no sideways scrolling, the menu and tables fit', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await signIn(rerolledKey);
      await signedIn();
      await nav('Stores');
      await page.getByRole('button', { name: 'Create store' }).click();
      await page.getByRole('dialog', { name: 'Create a store' }).getByLabel('Name').fill('phone-notes');
      await page.getByRole('dialog', { name: 'Create a store' }).getByRole('button', { name: 'Create' }).click();
      await page.getByRole('link', { name: 'phone-notes' }).waitFor();
      for (const [label, name] of [
        ['Stores', 'stores-phone'],
        ['Search', 'search-phone'],
        ['Activity & costs', 'activity-phone'],
        ['API keys', 'keys-phone'],
      ]) {
        await nav(label);
        await page.locator('main h1').waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await shot(name);
      }
    });

    it('never put the key in a URL or the page’s console', () => {
      expect(requestedUrls.length).toBeGreaterThan(20);
      expect(secrets).toHaveLength(4);
      for (const secret of secrets) {
        expect(requestedUrls.filter((u) => u.includes(secret))).toEqual([]);
        expect(consoleLines.filter((l) => l.includes(secret))).toEqual([]);
      }
    });
  });
}

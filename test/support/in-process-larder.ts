import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { AddressInfo } from 'net';
import { CommandBus } from '@nestjs/cqrs';
import Mixedbread from '@mixedbread/sdk';
import { CreateOrganizationCommand } from '@larder/organizations';
import { CreateApiKeyCommand } from '@larder/api-keys';
import { loadConfig } from '../../apps/api/src/config';
import { createLarderApp, LarderApp } from '../../apps/api/src/create-app';
import { createServerTestDatabase, TestDatabase } from '../../libs/database/src/testing/test-databases';

export interface TestLarder {
  baseURL: string;
  rootKey: string;
  larder: LarderApp;
  client(apiKey: string, options?: { maxRetries?: number }): Mixedbread;
  /** A new organization with one unscoped key; returns the key's secret. */
  newOrganization(name?: string): Promise<{ organizationId: string; apiKey: string }>;
  close(): Promise<void>;
}

/**
 * The whole API in this process on a random loopback port, on a fresh database of the machine's
 * PostgreSQL (or embedded Postgres with `embedded: true`), with the in-process bus.
 */
export async function startTestLarder(
  options: { embedded?: boolean; env?: Record<string, string> } = {},
): Promise<TestLarder> {
  const db: TestDatabase | null = options.embedded ? null : await createServerTestDatabase('larder_e2e');
  const dataDir = mkdtempSync(join(tmpdir(), 'larder-e2e-'));
  const rootKey = `lrd_test_${randomBytes(24).toString('base64url')}`;
  const config = loadConfig({
    PORT: '0',
    LARDER_DATA_DIR: dataDir,
    LARDER_ROOT_KEY: rootKey,
    LARDER_LOG_LEVEL: 'warn',
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...options.env,
  });
  const larder = await createLarderApp(config);
  await larder.app.listen(0, '127.0.0.1');
  const port = (larder.app.getHttpServer().address() as AddressInfo).port;
  const baseURL = `http://127.0.0.1:${port}`;
  return {
    baseURL,
    rootKey,
    larder,
    client: (apiKey, o = {}) => new Mixedbread({ apiKey, baseURL, maxRetries: o.maxRetries ?? 0, timeout: 20_000 }),
    async newOrganization(name = 'org') {
      const commands = larder.app.get(CommandBus);
      const { organizationId } = await commands.execute(new CreateOrganizationCommand(name));
      const key = await commands.execute(new CreateApiKeyCommand(organizationId, 'first key', null, null));
      return { organizationId, apiKey: key.value as string };
    },
    async close() {
      await larder.close();
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

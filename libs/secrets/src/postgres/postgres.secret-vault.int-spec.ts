import { createServerTestDatabase, type TestDatabase } from '@larder/database/testing/test-databases';
import { mkdtempSync, readFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Pool } from 'pg';
import { AesGcmSecretBox } from '../aes-gcm.secret-box';
import { FileKeyringSource } from '../keyring';
import { rotateMasterKey } from '../rotate-master-key';
import { PostgresSecretVault } from './postgres.secret-vault';

describe('PostgresSecretVault (machine PostgreSQL)', () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createServerTestDatabase('larder_vault');
    pool = new Pool({ connectionString: db.url, max: 3 });
    pool.on('error', () => undefined); // idle clients are cut when the database is dropped
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('stores only ciphertext, scopes reads to organization and purpose, and forgets on remove', async () => {
    const source = FileKeyringSource.inDataDir(mkdtempSync(join(tmpdir(), 'larder-vault-')));
    const vault = new PostgresSecretVault(pool, new AesGcmSecretBox(source));
    await vault.setup();
    const ref = await vault.put('org-a', 'bucket.access_key', 'wJalrXUtnFEMI/K7MDENG');
    expect(ref).toMatch(/^sec_/);
    const { rows } = await pool.query('SELECT * FROM secret_vault_v1');
    expect(JSON.stringify(rows)).not.toContain('wJalrXUtnFEMI');
    expect(await vault.get('org-a', 'bucket.access_key', ref)).toBe('wJalrXUtnFEMI/K7MDENG');
    await expect(vault.get('org-b', 'bucket.access_key', ref)).rejects.toThrow(/missing/);
    await expect(vault.get('org-a', 'trace_destination.credentials', ref)).rejects.toThrow(/missing/);
    // a sealed value copied onto another record does not open there
    const other = await vault.put('org-a', 'bucket.access_key', 'x');
    await pool.query(
      'UPDATE secret_vault_v1 SET sealed = (SELECT sealed FROM secret_vault_v1 WHERE ref = $1) WHERE ref = $2',
      [ref, other],
    );
    await expect(vault.get('org-a', 'bucket.access_key', other)).rejects.toThrow(/does not open/);
    await vault.remove('org-b', ref);
    expect(await vault.get('org-a', 'bucket.access_key', ref)).toBe('wJalrXUtnFEMI/K7MDENG');
    await vault.remove('org-a', ref);
    await expect(vault.get('org-a', 'bucket.access_key', ref)).rejects.toThrow(/missing/);
    await pool.query('DELETE FROM secret_vault_v1');
  });

  it('rotates the master key: every secret re-sealed, the old key dropped, and a restarted server still reads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'larder-vault-'));
    const source = FileKeyringSource.inDataDir(dir);
    const running = new AesGcmSecretBox(source);
    const vault = new PostgresSecretVault(pool, running);
    await vault.setup();
    const refs = await Promise.all(['one', 'two', 'three'].map((v, i) => vault.put(`org-${i}`, 'p', v)));
    const oldKey = running.currentKeyId;

    const rotation = await rotateMasterKey(
      FileKeyringSource.inDataDir(dir),
      new PostgresSecretVault(pool, new AesGcmSecretBox(FileKeyringSource.inDataDir(dir))),
    );
    expect(rotation).toEqual({
      previousKeyId: oldKey,
      currentKeyId: expect.not.stringMatching(oldKey),
      resealed: 3,
      retained: [],
    });
    const { rows } = await pool.query<{ key_id: string }>('SELECT DISTINCT key_id FROM secret_vault_v1');
    expect(rows.map((r) => r.key_id)).toEqual([rotation.currentKeyId]);
    expect(readFileSync(join(dir, 'secrets-keyring.json'), 'utf8')).not.toContain(oldKey);

    // the server that was running picks up the new keyring file; a restarted one reads it from disk
    expect(await vault.get('org-1', 'p', refs[1])).toBe('two');
    const restarted = new PostgresSecretVault(pool, new AesGcmSecretBox(FileKeyringSource.inDataDir(dir)));
    expect(await Promise.all(refs.map((r, i) => restarted.get(`org-${i}`, 'p', r)))).toEqual(['one', 'two', 'three']);
    expect(running.currentKeyId).toBe(rotation.currentKeyId);
  });
});

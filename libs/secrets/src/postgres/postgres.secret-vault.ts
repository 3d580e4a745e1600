import { randomUUID } from 'crypto';
import type { Pool } from 'pg';
import { SecretBox, SecretUnreadableError } from '../secret-box.port';
import type { SecretVault } from '../secret-vault.port';

const TABLE = 'secret_vault_v1';

/** Sealed secrets in a Postgres table beside the read models (not a read model: replay never touches it). */
export class PostgresSecretVault implements SecretVault {
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
  ) {}

  async setup(): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      ref text PRIMARY KEY,
      organization_id text NOT NULL,
      purpose text NOT NULL,
      key_id text NOT NULL,
      sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      resealed_at timestamptz
    )`);
  }

  async put(organizationId: string, purpose: string, plaintext: string): Promise<string> {
    const ref = `sec_${randomUUID()}`;
    const sealed = this.box.seal(plaintext, context(organizationId, purpose, ref));
    await this.pool.query(
      `INSERT INTO ${TABLE} (ref, organization_id, purpose, key_id, sealed) VALUES ($1, $2, $3, $4, $5)`,
      [ref, organizationId, purpose, this.box.keyIdOf(sealed), sealed],
    );
    return ref;
  }

  async get(organizationId: string, purpose: string, ref: string): Promise<string> {
    const { rows } = await this.pool.query<{ sealed: string }>(
      `SELECT sealed FROM ${TABLE} WHERE ref = $1 AND organization_id = $2 AND purpose = $3`,
      [ref, organizationId, purpose],
    );
    if (rows.length === 0) throw new SecretUnreadableError('the stored credentials are missing');
    return this.box.open(rows[0].sealed, context(organizationId, purpose, ref));
  }

  async remove(organizationId: string, ref: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${TABLE} WHERE ref = $1 AND organization_id = $2`, [ref, organizationId]);
  }

  async reseal(): Promise<{ resealed: number; keyIdsInUse: string[] }> {
    const current = this.box.currentKeyId;
    let resealed = 0;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ ref: string; organization_id: string; purpose: string; sealed: string }>(
        `SELECT ref, organization_id, purpose, sealed FROM ${TABLE} WHERE key_id <> $1 FOR UPDATE`,
        [current],
      );
      for (const row of rows) {
        const ctx = context(row.organization_id, row.purpose, row.ref);
        const sealed = this.box.seal(this.box.open(row.sealed, ctx), ctx);
        await client.query(`UPDATE ${TABLE} SET sealed = $2, key_id = $3, resealed_at = now() WHERE ref = $1`, [
          row.ref,
          sealed,
          this.box.keyIdOf(sealed),
        ]);
        resealed++;
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    const { rows } = await this.pool.query<{ key_id: string }>(`SELECT DISTINCT key_id FROM ${TABLE}`);
    return { resealed, keyIdsInUse: rows.map((r) => r.key_id) };
  }
}

function context(organizationId: string, purpose: string, ref: string): string {
  return `${organizationId}|${purpose}|${ref}`;
}

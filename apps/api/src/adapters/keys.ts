import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { EnvKeyringSource, FileKeyringSource, KeyringSource } from '@larder/secrets';
import { LarderConfig } from '../config';

/** LARDER_SECRETS_KEY (+ LARDER_SECRETS_PREVIOUS_KEYS), else `<dataDir>/secrets-keyring.json`, generated (mode 0600) on first start. */
export function keyringSource(config: LarderConfig): KeyringSource {
  return config.secretsKey
    ? new EnvKeyringSource(config.secretsKey, config.secretsPreviousKeys ?? undefined)
    : FileKeyringSource.inDataDir(config.dataDir);
}

/** LARDER_SIGNING_SECRET, else a key generated once into the data directory (mode 0600). */
export function signingSecret(config: LarderConfig): string {
  if (config.signingSecret) return config.signingSecret;
  const file = join(config.dataDir, 'signing-key');
  mkdirSync(config.dataDir, { recursive: true });
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch {
      /* written concurrently */
    }
  }
  return readFileSync(file, 'utf8').trim();
}

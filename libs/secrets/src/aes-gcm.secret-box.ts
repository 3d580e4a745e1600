import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import type { KeyringSource } from './keyring';
import { SecretBox, SecretUnreadableError } from './secret-box.port';

const PREFIX = 'lsb1';

/**
 * AES-256-GCM with a random 96-bit nonce per seal. Ciphertext form:
 * `lsb1.<key id>.<nonce b64url>.<ciphertext b64url>.<tag b64url>`; the context and key id are the
 * associated data.
 */
export class AesGcmSecretBox implements SecretBox {
  constructor(private readonly source: KeyringSource) {
    source.load();
  }

  get currentKeyId(): string {
    return this.source.load().current;
  }

  seal(plaintext: string, context: string): string {
    const ring = this.source.load();
    const key = ring.keys.get(ring.current)!;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(aad(ring.current, context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      PREFIX,
      ring.current,
      nonce.toString('base64url'),
      body.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== PREFIX) throw new SecretUnreadableError('not a sealed secret');
    const [, keyId, nonce, body, tag] = parts;
    const key = this.source.load().keys.get(keyId);
    if (!key)
      throw new SecretUnreadableError(
        `sealed with master key ${keyId}, which this server does not have (${this.source.describe})`,
      );
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(aad(keyId, context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError('the sealed secret does not open: altered, or sealed for another record');
    }
  }

  keyIdOf(sealed: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== PREFIX) throw new SecretUnreadableError('not a sealed secret');
    return parts[1];
  }
}

function aad(keyId: string, context: string): Buffer {
  return Buffer.from(`${PREFIX}|${keyId}|${context}`, 'utf8');
}

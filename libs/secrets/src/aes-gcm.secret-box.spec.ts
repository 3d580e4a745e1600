import { randomBytes } from 'crypto';
import { mkdtempSync, readFileSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { AesGcmSecretBox } from './aes-gcm.secret-box';
import { EnvKeyringSource, FileKeyringSource, keyIdOf, parseMasterKey } from './keyring';
import { SecretUnreadableError } from './secret-box.port';

describe('AesGcmSecretBox', () => {
  const key = randomBytes(32);
  const box = new AesGcmSecretBox(new EnvKeyringSource(key.toString('base64'), undefined));

  it('opens what it sealed, under the same context only', () => {
    const sealed = box.seal('AKIA/secret+value', 'org-1|bucket.access_key|sec_1');
    expect(sealed).not.toContain('secret+value');
    expect(sealed.startsWith(`lsb1.${keyIdOf(key)}.`)).toBe(true);
    expect(box.open(sealed, 'org-1|bucket.access_key|sec_1')).toBe('AKIA/secret+value');
    expect(() => box.open(sealed, 'org-2|bucket.access_key|sec_1')).toThrow(SecretUnreadableError);
  });

  it('uses a fresh nonce every time and refuses any altered byte', () => {
    const a = box.seal('same', 'ctx');
    const b = box.seal('same', 'ctx');
    expect(a).not.toBe(b);
    const parts = a.split('.');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => box.open(parts.join('.'), 'ctx')).toThrow(/does not open/);
    expect(() => box.open('plain text', 'ctx')).toThrow(/not a sealed secret/);
  });

  it('names the master key it does not have', () => {
    const other = new AesGcmSecretBox(new EnvKeyringSource(randomBytes(32).toString('hex'), undefined));
    expect(() => other.open(box.seal('x', 'c'), 'c')).toThrow(/does not have/);
  });

  it('opens with a previous key and seals with the current one', () => {
    const next = randomBytes(32);
    const rotated = new AesGcmSecretBox(new EnvKeyringSource(next.toString('base64url'), key.toString('base64')));
    const old = box.seal('v', 'c');
    expect(rotated.open(old, 'c')).toBe('v');
    expect(rotated.keyIdOf(rotated.seal('v', 'c'))).toBe(keyIdOf(next));
  });

  it('rejects a master key of the wrong size', () => {
    expect(() => parseMasterKey('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});

describe('FileKeyringSource', () => {
  it('generates a 0600 keyring once, adds and retires keys, and a second reader sees the change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'larder-keyring-'));
    const a = FileKeyringSource.inDataDir(dir);
    const b = FileKeyringSource.inDataDir(dir);
    const first = a.load().current;
    expect(statSync(join(dir, 'secrets-keyring.json')).mode & 0o777).toBe(0o600);
    expect(b.load().current).toBe(first);
    const boxB = new AesGcmSecretBox(b);
    const old = boxB.seal('s', 'c');
    const ring = a.addCurrent();
    expect(ring.current).not.toBe(first);
    expect(ring.keys.size).toBe(2);
    expect(new AesGcmSecretBox(b).currentKeyId).toBe(ring.current);
    expect(boxB.open(old, 'c')).toBe('s');
    a.retire([]);
    expect([...a.load().keys.keys()]).toEqual([ring.current]);
    expect(() => boxB.open(old, 'c')).toThrow(/does not have/);
    expect(statSync(join(dir, 'secrets-keyring.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'secrets-keyring.json'), 'utf8')).toContain(ring.current);
  });
});

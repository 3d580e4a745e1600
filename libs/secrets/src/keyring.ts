import { createHash, randomBytes } from 'crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'fs';
import { dirname, join } from 'path';

/** Master keys by id; `current` seals, the others only open (until a rotation re-encrypts everything). */
export interface Keyring {
  current: string;
  keys: Map<string, Buffer>;
}

/** A key's id: a short fingerprint of it, safe to store beside ciphertexts and print. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('larder-secret-box-key-id').update(key).digest('hex').slice(0, 16);
}

/** A 32-byte master key written as base64 (standard or url) or 64 hex digits. */
export function parseMasterKey(text: string, name = 'LARDER_SECRETS_KEY'): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, 'hex')
    : Buffer.from(t, t.includes('-') || t.includes('_') ? 'base64url' : 'base64');
  if (key.length !== 32)
    throw new Error(`${name} must be 32 bytes, written as base64 or 64 hex digits (openssl rand -base64 32)`);
  return key;
}

/** Where the keyring comes from: the environment (operator-managed) or a file in the data directory. */
export interface KeyringSource {
  readonly describe: string;
  /** The keyring as it stands now (a file source re-reads the file when it changed). */
  load(): Keyring;
  /** A new current key; the previous ones stay until `retire`. Not possible for an environment source. */
  addCurrent?(): Keyring;
  /** Drops every key but the current one. */
  retire?(keep: readonly string[]): Keyring;
}

/**
 * `LARDER_SECRETS_KEY` (the current key) and `LARDER_SECRETS_PREVIOUS_KEYS` (comma-separated keys that
 * still open older ciphertexts until `secrets rotate` re-encrypts them).
 */
export class EnvKeyringSource implements KeyringSource {
  readonly describe = 'LARDER_SECRETS_KEY';
  private readonly ring: Keyring;
  constructor(current: string, previous: string | undefined) {
    const key = parseMasterKey(current);
    const keys = new Map<string, Buffer>([[keyIdOf(key), key]]);
    for (const p of (previous ?? '').split(',').filter((s) => s.trim())) {
      const k = parseMasterKey(p, 'LARDER_SECRETS_PREVIOUS_KEYS');
      keys.set(keyIdOf(k), k);
    }
    this.ring = { current: keyIdOf(key), keys };
  }
  load(): Keyring {
    return this.ring;
  }
}

interface KeyringFile {
  current: string;
  keys: Record<string, string>;
}

/** `<dataDir>/secrets-keyring.json`, mode 0600, generated with one key on first start. */
export class FileKeyringSource implements KeyringSource {
  private cached: { mtimeMs: number; size: number; ring: Keyring } | null = null;

  constructor(readonly file: string) {}

  get describe(): string {
    return this.file;
  }

  static inDataDir(dataDir: string): FileKeyringSource {
    return new FileKeyringSource(join(dataDir, 'secrets-keyring.json'));
  }

  load(): Keyring {
    if (!existsSync(this.file)) {
      mkdirSync(dirname(this.file), { recursive: true });
      const key = randomBytes(32);
      try {
        writeFileSync(this.file, serialize({ current: keyIdOf(key), keys: new Map([[keyIdOf(key), key]]) }), {
          mode: 0o600,
          flag: 'wx',
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process wrote it first
      }
    }
    const stat = statSync(this.file);
    if (this.cached && this.cached.mtimeMs === stat.mtimeMs && this.cached.size === stat.size) return this.cached.ring;
    const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as KeyringFile;
    const keys = new Map(Object.entries(parsed.keys).map(([id, k]) => [id, Buffer.from(k, 'base64')] as const));
    if (!keys.has(parsed.current)) throw new Error(`${this.file}: the current key ${parsed.current} is missing`);
    const ring = { current: parsed.current, keys };
    this.cached = { mtimeMs: stat.mtimeMs, size: stat.size, ring };
    return ring;
  }

  addCurrent(): Keyring {
    const ring = this.load();
    const key = randomBytes(32);
    const next = { current: keyIdOf(key), keys: new Map([...ring.keys, [keyIdOf(key), key]]) };
    this.write(next);
    return next;
  }

  retire(keep: readonly string[]): Keyring {
    const ring = this.load();
    const next = {
      current: ring.current,
      keys: new Map([...ring.keys].filter(([id]) => id === ring.current || keep.includes(id))),
    };
    this.write(next);
    return next;
  }

  /** Written to a temporary file and renamed over the old one: a crash leaves either keyring whole. */
  private write(ring: Keyring): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, serialize(ring), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
    this.cached = null;
  }
}

function serialize(ring: Keyring): string {
  const file: KeyringFile = {
    current: ring.current,
    keys: Object.fromEntries([...ring.keys].map(([id, k]) => [id, k.toString('base64')])),
  };
  return JSON.stringify(file, null, 2) + '\n';
}

/** LARDER_SECRETS_KEY when set, else the keyring file in the data directory. */
export function keyringSourceFromEnv(dataDir: string, env: NodeJS.ProcessEnv = process.env): KeyringSource {
  if (env.LARDER_SECRETS_KEY) return new EnvKeyringSource(env.LARDER_SECRETS_KEY, env.LARDER_SECRETS_PREVIOUS_KEYS);
  return FileKeyringSource.inDataDir(dataDir);
}

import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'fs';
import { join } from 'path';

/** The file in a data directory through which a running server lends its embedded database to the CLI. */
export const EMBEDDED_DATABASE_LOCK_FILE = 'embedded-postgres.json';

/** Records that this process serves `url` for `dataDir` (mode 0600: the address is the only credential). */
export function publishEmbeddedDatabase(dataDir: string, url: string): void {
  writeFileSync(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE), JSON.stringify({ pid: process.pid, url }), { mode: 0o600 });
}

/** If a live process serves an embedded database on this data directory, the URL of that database. */
export function runningEmbeddedDatabase(dataDir: string): string | null {
  const file = join(dataDir, EMBEDDED_DATABASE_LOCK_FILE);
  if (!existsSync(file)) return null;
  try {
    const { pid, url } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; url: string };
    process.kill(pid, 0);
    return url;
  } catch {
    return null;
  }
}

/** Removes the record written by `publishEmbeddedDatabase`. */
export function unpublishEmbeddedDatabase(dataDir: string): void {
  try {
    unlinkSync(join(dataDir, EMBEDDED_DATABASE_LOCK_FILE));
  } catch {
    /* already gone */
  }
}

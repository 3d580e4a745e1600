/** Temporary lexical index files for the BM25 specs: fresh paths, a store written as a case goes, a one-file store. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '../embedded/sqlite.chunk-index';
import { markdownFileOps } from './file-ops';

const dir = mkdtempSync(join(tmpdir(), 'larder-lexical-property-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let run = 0;

/** A fresh index file's path in the suite's temporary folder (the folder is removed after the suite). */
export const indexPath = (name: string) => join(dir, `${name}${run++}.sqlite`);

/**
 * A fresh index file (no feedback; `lexicalBlockSize` postings a block, default the writer's) and a reader on
 * it, for a case that writes as it goes: `write(f, texts)` puts file f{f} of store `s`, one chunk a text, at
 * the next position. The file is removed afterwards.
 */
export async function writtenStore(
  name: string,
  fn: (write: (f: number, texts: string[]) => Promise<void>, reader: Database.Database) => Promise<void>,
  lexicalBlockSize?: number,
): Promise<void> {
  const path = indexPath(name);
  const index = new SqliteChunkIndex(path, { readWorker: false, lexical: { feedback: null }, lexicalBlockSize });
  await index.setup();
  const reader = new Database(path, { readonly: true });
  let seq = 0n;
  const write = async (f: number, texts: string[]) => {
    seq++;
    await index.write(markdownFileOps('s', `f${f}`, texts), {
      projection: 'p',
      version: 1,
      position: { commit: seq, prepare: seq },
    });
  };
  try {
    await fn(write, reader);
  } finally {
    reader.close();
    await index.close();
    rmSync(path, { force: true });
  }
}

/**
 * Runs `fn` on a store `s` of one Markdown file holding `texts` (a chunk each), read through its own
 * read-only connection, and removes it after.
 */
export const oneFileStore = (
  name: string,
  texts: string[],
  lexicalBlockSize: number | undefined,
  fn: (reader: Database.Database) => void,
): Promise<void> =>
  writtenStore(
    name,
    async (write, reader) => {
      await write(0, texts);
      fn(reader);
    },
    lexicalBlockSize,
  );

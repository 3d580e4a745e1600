import type Database from 'better-sqlite3';
import type { LexicalState } from './state';

/** What the lexical search keeps between queries where it runs: bytes of blocks and of dense lists, directories cached. */
export interface LexicalCacheStats {
  blockBytes: number;
  denseBytes: number;
  denseLists: number;
  directories: number;
}

/** A read program over the lexical search's state (it shares that state): its caches' sizes, read from its counters. */
export function lexicalCacheStats(_db: Database.Database, _input: unknown, state: LexicalState): LexicalCacheStats {
  return {
    blockBytes: state.blockBytes ?? 0,
    denseBytes: state.denseBytes ?? 0,
    denseLists: state.denseQueue?.length ?? 0,
    directories: state.dirs?.size ?? 0,
  };
}

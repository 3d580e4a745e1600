import type Database from 'better-sqlite3';

interface Row {
  id: number;
  store_id: string;
  file_id: string;
  text: string;
  generated_metadata: string | null;
  filename: string | null;
}

/** What the rebuild needs of the lexical writer (its `setPath`, `addFile` and `flush`). */
export interface FileIndexer {
  setPath(storeId: string, fileId: string, path: string): void;
  addFile(
    storeId: string,
    chunks: Array<{ id: number; text: string; generatedMetadata: unknown }>,
    path: string | null,
  ): void;
  flush(): void;
}

/**
 * Indexes every chunk of the file once, in id order (the migration's rebuild, in its transaction): read
 * in pages, for the connection writes between them. A file's chunks are written together (setChunks),
 * so they follow one another in id order: each file is indexed once its last chunk is read (a file cut
 * by the page waits for the next page), with its path.
 */
export function indexChunks(db: Database.Database, writer: FileIndexer): void {
  const page = db.prepare(
    `SELECT c.id, c.store_id, c.file_id, c.text, c.generated_metadata, f.filename FROM chunks c
     LEFT JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.id > ? ORDER BY c.id LIMIT 5000`,
  );
  let file: Row[] = [];
  const add = () => {
    if (!file.length) return;
    const r = file[0];
    if (r.filename !== null) writer.setPath(r.store_id, r.file_id, r.filename);
    const chunks = file.map((c) => ({
      id: c.id,
      text: c.text,
      generatedMetadata: c.generated_metadata ? (JSON.parse(c.generated_metadata) as unknown) : null,
    }));
    writer.addFile(r.store_id, chunks, r.filename);
    file = [];
  };
  for (let after = 0; ;) {
    const rows = page.all(after) as Row[];
    if (!rows.length) break;
    for (const r of rows) {
      if (file.length && (file[0].store_id !== r.store_id || file[0].file_id !== r.file_id)) add();
      file.push(r);
    }
    writer.flush();
    after = rows[rows.length - 1].id;
  }
  add();
  writer.flush();
}

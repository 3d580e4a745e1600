import Database from 'better-sqlite3';
import { IvfCatalogue } from './ivf.catalogue';
import { LexicalWriter } from './lexical/writer';
import { Row } from './sqlite.schema';
import { ChunkIndexOp } from '../chunk-index.port';

/**
 * The embedded chunk index's ops on its tables, run inside the caller's write transaction: the files and
 * chunks rows, the vectors' places in the IVF lists (ivf.catalogue.ts) and the BM25 postings (lexical/writer.ts).
 */
export class SqliteOpWriter {
  /** Whether an op since the last `takeReplaced` replaced a chunk's vector in place (a cached exact scan must be read again). */
  private replaced = false;

  constructor(
    private readonly db: Database.Database,
    private readonly ivf: IvfCatalogue,
    private readonly lex: LexicalWriter,
  ) {}

  apply(op: ChunkIndexOp): void {
    const db = this.db;
    switch (op.op) {
      case 'putFile': {
        const f = op.file;
        const cur = db
          .prepare(`SELECT generation FROM files WHERE store_id = ? AND file_id = ?`)
          .get(f.storeId, f.fileId) as Row | undefined;
        if (cur && (cur.generation as number) > f.generation) return;
        if (cur && (cur.generation as number) < f.generation) {
          this.removeChunks(f.storeId, f.fileId);
        }
        db.prepare(
          `INSERT INTO files (store_id, file_id, organization_id, filename, external_id, metadata, generation) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (store_id, file_id) DO UPDATE SET filename = excluded.filename, external_id = excluded.external_id, metadata = excluded.metadata, generation = excluded.generation`,
        ).run(
          f.storeId,
          f.fileId,
          f.organizationId,
          f.filename,
          f.externalId,
          JSON.stringify(f.metadata ?? null),
          f.generation,
        );
        return;
      }
      case 'setChunks': {
        const file = this.atGeneration(op.storeId, op.fileId, op.generation);
        if (!file) return;
        this.removeChunks(op.storeId, op.fileId);
        // the path field: the file's path as its chunks are indexed (a later delete drops those terms)
        if (op.chunks.length) this.lex.setPath(op.storeId, op.fileId, file.filename);
        const ins = db.prepare(
          `INSERT INTO chunks (id, store_id, file_id, chunk_index, text, offset, mime_type, generated_metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        const indexed: Array<{ id: number; text: string; generatedMetadata: unknown }> = [];
        for (const c of op.chunks) {
          const id = this.lex.takeId();
          ins.run(
            id,
            op.storeId,
            op.fileId,
            c.chunkIndex,
            c.text,
            c.offset,
            c.mimeType,
            c.generatedMetadata ? JSON.stringify(c.generatedMetadata) : null,
          );
          indexed.push({ id, text: c.text, generatedMetadata: c.generatedMetadata });
        }
        this.lex.addFile(op.storeId, indexed, file.filename);
        return;
      }
      case 'setVectors': {
        if (!this.atGeneration(op.storeId, op.fileId, op.generation)) return;
        this.replaced ||= !!db
          .prepare(`SELECT 1 FROM chunks WHERE store_id = ? AND file_id = ? AND vector IS NOT NULL LIMIT 1`)
          .get(op.storeId, op.fileId);
        this.ivf.revectoring(op.model, op.vectors.length, `store_id = ? AND file_id = ?`, op.storeId, op.fileId);
        const upd = db.prepare(
          `UPDATE chunks SET vector = ?, model = ?, list = ? WHERE store_id = ? AND file_id = ? AND chunk_index = ? RETURNING id`,
        );
        op.vectors.forEach((v, i) => {
          const placed = this.ivf.place(op.model, v);
          const row = upd.get(
            Buffer.from(v.buffer, v.byteOffset, v.byteLength),
            op.model,
            placed?.list ?? null,
            op.storeId,
            op.fileId,
            i,
          ) as Row | undefined;
          if (row && placed) this.ivf.adding(op.model, row.id as number, op.storeId, placed);
        });
        return;
      }
      case 'setMetadata':
        db.prepare(`UPDATE files SET metadata = ? WHERE store_id = ? AND file_id = ?`).run(
          JSON.stringify(op.metadata ?? null),
          op.storeId,
          op.fileId,
        );
        return;
      case 'deleteFile':
        this.removeChunks(op.storeId, op.fileId);
        db.prepare(`DELETE FROM files WHERE store_id = ? AND file_id = ?`).run(op.storeId, op.fileId);
        return;
      case 'deleteStore':
        this.ivf.removing(`store_id = ?`, op.storeId);
        this.lex.dropStore(op.storeId);
        db.prepare(`DELETE FROM chunks WHERE store_id = ?`).run(op.storeId);
        db.prepare(`DELETE FROM files WHERE store_id = ?`).run(op.storeId);
        return;
    }
  }

  /** Whether an op replaced a vector in place since the last call. */
  takeReplaced(): boolean {
    const r = this.replaced;
    this.replaced = false;
    return r;
  }

  /** Deletes a file's chunks (their vectors leave the IVF lists, their postings become tombstones). */
  private removeChunks(storeId: string, fileId: string): void {
    this.ivf.removing(`store_id = ? AND file_id = ?`, storeId, fileId);
    const rows = this.db
      .prepare(`SELECT id, text, generated_metadata FROM chunks WHERE store_id = ? AND file_id = ?`)
      .all(storeId, fileId) as Array<{
      id: number;
      text: string;
      generated_metadata: string | null;
    }>;
    this.lex.remove(storeId, fileId, rows);
    this.db.prepare(`DELETE FROM chunks WHERE store_id = ? AND file_id = ?`).run(storeId, fileId);
  }

  /** The file's row when it is at `generation` (else null: the op is stale). */
  private atGeneration(storeId: string, fileId: string, generation: number): { filename: string } | null {
    const r = this.db
      .prepare(`SELECT generation, filename FROM files WHERE store_id = ? AND file_id = ?`)
      .get(storeId, fileId) as Row | undefined;
    return r && r.generation === generation ? { filename: r.filename as string } : null;
  }
}

import { Client, errors } from '@elastic/elasticsearch';
import { ChunkIndexOp } from '../chunk-index.port';
import { ChunkDoc, chunkId, FileDoc, fileId } from './elasticsearch.mappings';

/**
 * The chunk-index ops on Elasticsearch, as bulk requests whose documents carry the batch's external version
 * (`external_gte`), so a repeated or late batch never overwrites newer state; a store's deletion is a delete-by-query.
 */

/** The client and the names of the indices an op writes. */
export interface EsWriteTarget {
  client: Client;
  files: string;
  chunks: string;
}

/** The external version every document of a batch is indexed with. */
export type EsVersion = { version: number; version_type: 'external_gte' };

/** A file's document, read in real time (null: none). */
async function getFileDoc(t: EsWriteTarget, storeId: string, fid: string): Promise<FileDoc | null> {
  try {
    return (await t.client.get<FileDoc>({ index: t.files, id: fileId(storeId, fid) }))._source ?? null;
  } catch (err) {
    if (err instanceof errors.ResponseError && err.statusCode === 404) return null;
    throw err;
  }
}

/** Sends one bulk request; version conflicts mean newer state is already there and are ignored. */
async function bulk(client: Client, operations: unknown[]): Promise<void> {
  if (!operations.length) return;
  const r = await client.bulk({ operations: operations as never[] });
  if (!r.errors) return;
  const bad = r.items
    .map((i) => Object.values(i)[0])
    .filter((i) => i && i.error && i.status !== 409 && !(i.status === 404 && i.result === 'not_found'));
  if (bad.length) throw new Error(`Elasticsearch bulk write failed: ${JSON.stringify(bad[0].error)}`);
}

/** Applies one op, after reading the file document it depends on. */
export async function applyOp(t: EsWriteTarget, op: ChunkIndexOp, v: EsVersion): Promise<void> {
  switch (op.op) {
    case 'putFile': {
      const f = op.file;
      const cur = await getFileDoc(t, f.storeId, f.fileId);
      if (cur && cur.generation > f.generation) return;
      const dropChunks =
        cur && cur.generation < f.generation
          ? Array.from({ length: cur.chunk_count }, (_, i) => ({
              delete: { _index: t.chunks, _id: chunkId(f.storeId, f.fileId, i) },
            }))
          : [];
      const doc: FileDoc = {
        store_id: f.storeId,
        file_id: f.fileId,
        organization_id: f.organizationId,
        filename: f.filename,
        external_id: f.externalId,
        metadata: f.metadata ?? null,
        generation: f.generation,
        chunk_count: cur && cur.generation === f.generation ? cur.chunk_count : 0,
      };
      await bulk(t.client, [
        ...dropChunks,
        { index: { _index: t.files, _id: fileId(f.storeId, f.fileId), ...v } },
        doc,
      ]);
      return;
    }
    case 'setChunks': {
      const cur = await getFileDoc(t, op.storeId, op.fileId);
      if (!cur || cur.generation !== op.generation) return;
      const stale = Array.from({ length: Math.max(0, cur.chunk_count - op.chunks.length) }, (_, i) => ({
        delete: { _index: t.chunks, _id: chunkId(op.storeId, op.fileId, op.chunks.length + i) },
      }));
      const docs = op.chunks.flatMap((c) => [
        { index: { _index: t.chunks, _id: chunkId(op.storeId, op.fileId, c.chunkIndex), ...v } },
        {
          store_id: op.storeId,
          file_id: op.fileId,
          generation: op.generation,
          chunk_index: c.chunkIndex,
          text: c.text,
          offset: c.offset,
          mime_type: c.mimeType,
          generated_metadata: c.generatedMetadata,
          model: null,
        } satisfies ChunkDoc,
      ]);
      await bulk(t.client, [
        ...stale,
        ...docs,
        { index: { _index: t.files, _id: fileId(op.storeId, op.fileId), ...v } },
        { ...cur, chunk_count: op.chunks.length },
      ]);
      return;
    }
    case 'setVectors': {
      const cur = await getFileDoc(t, op.storeId, op.fileId);
      if (!cur || cur.generation !== op.generation || !op.vectors.length) return;
      const ids = op.vectors.map((_, i) => chunkId(op.storeId, op.fileId, i));
      const got = await t.client.mget<ChunkDoc>({ index: t.chunks, ids });
      const docs: unknown[] = [];
      got.docs.forEach((d, i) => {
        if (!('found' in d) || !d.found || !d._source || d._source.generation !== op.generation) return;
        const field = `vector_${op.vectors[i].length}` as const;
        docs.push(
          { index: { _index: t.chunks, _id: ids[i], ...v } },
          { ...d._source, model: op.model, [field]: Array.from(op.vectors[i]) },
        );
      });
      await bulk(t.client, docs);
      return;
    }
    case 'setMetadata': {
      const cur = await getFileDoc(t, op.storeId, op.fileId);
      if (!cur) return;
      await bulk(t.client, [
        { index: { _index: t.files, _id: fileId(op.storeId, op.fileId), ...v } },
        { ...cur, metadata: op.metadata ?? null },
      ]);
      return;
    }
    case 'deleteFile': {
      const cur = await getFileDoc(t, op.storeId, op.fileId);
      if (!cur) return;
      await bulk(t.client, [
        ...Array.from({ length: cur.chunk_count }, (_, i) => ({
          delete: { _index: t.chunks, _id: chunkId(op.storeId, op.fileId, i) },
        })),
        { delete: { _index: t.files, _id: fileId(op.storeId, op.fileId) } },
      ]);
      return;
    }
    case 'deleteStore': {
      await t.client.indices.refresh({ index: [t.files, t.chunks] });
      for (const index of [t.chunks, t.files]) {
        await t.client.deleteByQuery({
          index,
          query: { term: { store_id: op.storeId } },
          conflicts: 'proceed',
          refresh: true,
        });
      }
      return;
    }
  }
}

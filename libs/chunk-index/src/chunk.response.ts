import type { IndexedChunk, ScoredChunk } from './chunk-index.port';

/** A stored chunk as the API returns it (§13.3, `text` type). */
export function toChunkResponse(c: IndexedChunk) {
  return {
    type: 'text' as const,
    chunk_index: c.chunkIndex,
    mime_type: c.mimeType,
    generated_metadata: c.generatedMetadata,
    model: c.model,
    offset: c.offset,
    text: c.text,
    context: null,
    summary: null,
  };
}

/** The scored form (search, grep, list-chunks, QA): every field the client types as required present. */
export function toScoredChunkResponse(c: ScoredChunk, returnMetadata: boolean) {
  return {
    ...toChunkResponse(c),
    score: c.score,
    file_id: c.fileId,
    filename: c.filename,
    store_id: c.storeId,
    external_id: c.externalId,
    metadata: returnMetadata ? c.metadata : null,
  };
}

import { conformGeneratedMetadata } from '@larder/ingestion/generated-metadata';
import type { IndexedChunk, ScoredChunk } from './chunk-index.port';

/**
 * A stored chunk as the API returns it: a `text` chunk, or an `image_url` chunk (an image's
 * OCR text as `ocr_text`; `image_url.url` is the image's signed content URL where the caller may read
 * the store, else `image_url` is null). `generated_metadata` is always one of the declared variants.
 */
export function toChunkResponse(c: IndexedChunk, imageUrl: string | null = null) {
  const common = {
    chunk_index: c.chunkIndex,
    mime_type: c.mimeType,
    generated_metadata: conformGeneratedMetadata(c.generatedMetadata),
    model: c.model,
  };
  if (c.type === 'image_url') {
    return {
      type: 'image_url' as const,
      ...common,
      ocr_text: c.text,
      summary: null,
      context: null,
      image_url: imageUrl ? { url: imageUrl, format: c.mimeType } : null,
    };
  }
  return { type: 'text' as const, ...common, offset: c.offset, text: c.text, context: null, summary: null };
}
export type ChunkResponse = ReturnType<typeof toChunkResponse>;

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
export type ScoredChunkResponse = ReturnType<typeof toScoredChunkResponse>;

/** A returned chunk's searchable text: `text`, or an image chunk's `ocr_text`. */
export const chunkResponseText = (c: ChunkResponse): string => (c.type === 'image_url' ? c.ocr_text : c.text);

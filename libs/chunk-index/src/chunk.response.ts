import { conformGeneratedMetadata } from '@larder/ingestion/generated-metadata';
import type { IndexedChunk, ScoredChunk } from './chunk-index.port';

/**
 * A stored chunk as the API returns it: a `text` chunk, an `image_url` chunk (an image's OCR text as
 * `ocr_text`), or an `audio_url` / `video_url` chunk (its transcript as `transcription`; audio with
 * the recording's `sampling_rate`). The `*_url.url` is the file's signed content URL where the caller
 * may read the store, else null. `generated_metadata` is always one of the declared variants.
 */
export function toChunkResponse(c: IndexedChunk, contentUrl: string | null = null) {
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
      image_url: contentUrl ? { url: contentUrl, format: c.mimeType } : null,
    };
  }
  const recording = { ...common, transcription: c.text, summary: null, context: null };
  const url = contentUrl ? { url: contentUrl } : null;
  if (c.type === 'audio_url') {
    const rate = common.generated_metadata?.type === 'audio' ? common.generated_metadata.sample_rate : null;
    // the recording's own rate; 16 kHz (what it was transcribed at) when ffprobe could not tell
    return { type: 'audio_url' as const, ...recording, audio_url: url, sampling_rate: rate ?? 16_000 };
  }
  if (c.type === 'video_url') return { type: 'video_url' as const, ...recording, video_url: url };
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

/** A returned chunk's searchable text: `text`, an image chunk's `ocr_text`, a recording's `transcription`. */
export const chunkResponseText = (c: ChunkResponse): string =>
  c.type === 'image_url' ? c.ocr_text : c.type === 'text' ? c.text : c.transcription;

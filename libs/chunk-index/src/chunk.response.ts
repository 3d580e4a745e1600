import { conformGeneratedMetadata } from '@larder/ingestion/generated-metadata';
import type { IndexedChunk, ScoredChunk } from './chunk-index.port';

/**
 * A stored chunk as the API returns it: a `text` chunk, an `image_url` chunk (an image's OCR text as
 * `ocr_text`), or an `audio_url` / `video_url` chunk (its transcript as `transcription`; audio with
 * the recording's `sampling_rate`). The `*_url.url` is the file's signed content URL where the caller
 * may read the store, else null. `generated_metadata` is always one of the declared variants.
 */
export function toChunkResponse(c: IndexedChunk, contentUrl: string | null = null) {
  // each shape built as one literal (no spreads: a spread copies key by key into a slower object, which
  // costs a search of 100 results more than reading its chunks)
  const generated = conformGeneratedMetadata(c.generatedMetadata);
  const [chunk_index, mime_type, model] = [c.chunkIndex, c.mimeType, c.model];
  const url = contentUrl ? { url: contentUrl } : null;
  switch (c.type) {
    case 'image_url':
      return {
        type: 'image_url' as const,
        chunk_index,
        mime_type,
        generated_metadata: generated,
        model,
        ocr_text: c.text,
        summary: null,
        context: null,
        image_url: contentUrl ? { url: contentUrl, format: c.mimeType } : null,
      };
    case 'audio_url': {
      const rate = generated?.type === 'audio' ? generated.sample_rate : null;
      return {
        type: 'audio_url' as const,
        chunk_index,
        mime_type,
        generated_metadata: generated,
        model,
        transcription: c.text,
        summary: null,
        context: null,
        audio_url: url,
        // the recording's own rate; 16 kHz (what it was transcribed at) when ffprobe could not tell
        sampling_rate: rate ?? 16_000,
      };
    }
    case 'video_url':
      return {
        type: 'video_url' as const,
        chunk_index,
        mime_type,
        generated_metadata: generated,
        model,
        transcription: c.text,
        summary: null,
        context: null,
        video_url: url,
      };
    default:
      return {
        type: 'text' as const,
        chunk_index,
        mime_type,
        generated_metadata: generated,
        model,
        offset: c.offset,
        text: c.text,
        context: null,
        summary: null,
      };
  }
}
export type ChunkResponse = ReturnType<typeof toChunkResponse>;

/** The scored form (search, grep, list-chunks, QA): every field the client types as required present. */
export function toScoredChunkResponse(c: ScoredChunk, returnMetadata: boolean) {
  return Object.assign(toChunkResponse(c), {
    score: c.score,
    file_id: c.fileId,
    filename: c.filename,
    store_id: c.storeId,
    external_id: c.externalId,
    metadata: returnMetadata ? c.metadata : null,
  });
}
export type ScoredChunkResponse = ReturnType<typeof toScoredChunkResponse>;

/** A returned chunk's searchable text: `text`, an image chunk's `ocr_text`, a recording's `transcription`. */
export const chunkResponseText = (c: ChunkResponse): string =>
  c.type === 'image_url' ? c.ocr_text : c.type === 'text' ? c.text : c.transcription;

/** Chunking modes and sizes, the chunk shape, and what is embedded for a chunk. */
import { GeneratedMetadata } from './generated-metadata';

export type ChunkingMode = 'fast' | 'high_quality';

/**
 * The two parsing strategies (docs/api.md, "Parsing strategies"):
 * - `fast`: structure-aware packing of whole blocks up to 512 tokens with 48 tokens of overlap; the
 *   embedding input is the chunk text alone.
 * - `high_quality`: smaller 256-token chunks cut on sentence boundaries with 64 tokens of overlap,
 *   PDF lines de-hyphenated and re-flowed, repeated page headers and footers removed, and the
 *   embedding input prefixed with the file name and the chunk's heading path (contextual chunks).
 */
export const CHUNKING: Record<ChunkingMode, { maxTokens: number; overlapTokens: number }> = {
  fast: { maxTokens: 512, overlapTokens: 48 },
  high_quality: { maxTokens: 256, overlapTokens: 64 },
};

/** The longest stretch of a recording one `audio_url` or `video_url` chunk covers, in seconds. */
export const MEDIA_WINDOW_SECONDS = 60;

/** Bounds of a store file's `config.max_chunk_size` (tokens, as `estimateTokens` counts them). */
export const MAX_CHUNK_SIZE = { min: 32, max: 8192 } as const;

/**
 * The token budget and overlap of a mode, with the file's `max_chunk_size` when it set one: the
 * overlap keeps the mode's share of the chunk (fast 48/512, high_quality 64/256).
 */
export function chunkingFor(mode: ChunkingMode, maxChunkSize?: number | null): ChunkSizes {
  const base = CHUNKING[mode];
  if (!maxChunkSize) return base;
  return { maxTokens: maxChunkSize, overlapTokens: Math.floor((base.overlapTokens * maxChunkSize) / base.maxTokens) };
}

/** Where a chunk sits in its document: the document's own title and the headings above the chunk. */
export interface ChunkContext {
  title: string | null;
  headings: string[];
}

export interface Chunk {
  chunkIndex: number;
  /** `text` chunks, `image_url` chunks whose text is the OCR text of an image, or `audio_url`/`video_url` chunks whose text is a transcript. */
  type: 'text' | 'image_url' | 'audio_url' | 'video_url';
  mimeType: string;
  text: string;
  /** What is embedded without store contextualization: the text, or (high_quality) the text with its document context. */
  embedText: string;
  context: ChunkContext;
  offset: number;
  tokens: number;
  generatedMetadata: GeneratedMetadata;
}

/** `file name > title > heading > subheading`, repeated neighbours dropped (a title equal to the first heading). */
export function contextLine(filename: string, context: ChunkContext): string {
  const parts: string[] = [];
  for (const p of [filename, context.title, ...context.headings]) {
    const t = p?.replace(/\s+/g, ' ').trim();
    if (t && t.toLowerCase() !== parts[parts.length - 1]?.toLowerCase()) parts.push(t);
  }
  return parts.join(' > ');
}

/**
 * The text embedded for a chunk. Store contextualization (`config.contextualization`) prepends the
 * file context (file name, title, heading path) and/or the file's metadata as `key: value` lines;
 * without it, `fast` embeds the text as it is and `high_quality` with its file context. The chunk's
 * returned text never changes.
 */
export function embeddingInput(
  chunk: Pick<Chunk, 'text' | 'context'>,
  o: { filename: string; mode: ChunkingMode; fileContext: boolean; metadataLines?: string | null },
): string {
  const head = [
    o.fileContext || o.mode === 'high_quality' ? contextLine(o.filename, chunk.context) : '',
    o.metadataLines ?? '',
  ]
    .filter(Boolean)
    .join('\n');
  return head ? `${head}\n\n${chunk.text}` : chunk.text;
}

/**
 * A chunk size chosen by the caller instead of the mode's: Mixedbread's `config.max_chunk_size`
 * (through `chunkingFor`) or OpenAI's static `chunking_strategy`.
 */
export interface ChunkSizes {
  maxTokens: number;
  overlapTokens: number;
}

/**
 * The artifact key's strategy part: the mode alone for its own sizes (so existing artifacts stay
 * valid), the mode and the sizes otherwise.
 */
export function chunkingKey(mode: ChunkingMode, sizes?: ChunkSizes | null): string {
  if (!sizes || (sizes.maxTokens === CHUNKING[mode].maxTokens && sizes.overlapTokens === CHUNKING[mode].overlapTokens))
    return mode;
  return `${mode}:${sizes.maxTokens}:${sizes.overlapTokens}`;
}

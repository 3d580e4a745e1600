/** What a parser produces: the text of a document as ordered blocks, with their structure. */
export interface Heading {
  level: number;
  text: string;
}

export interface Block {
  text: string;
  kind: 'heading' | 'paragraph' | 'code' | 'list' | 'table' | 'definition' | 'row' | 'page';
  /** For headings. */
  level?: number;
  /** 1-based line range in the source (text formats); 0 when unknown. Chunks report it 0-based (`start_line`). */
  startLine: number;
  endLine: number;
  /** 1-based page (PDF). */
  page?: number;
  /** Character offset of the block in the extracted text. */
  offset: number;
  /** Audio and video: the seconds of the recording the block covers. */
  startSeconds?: number;
  endSeconds?: number;
}

/**
 * Which declared `generated_metadata` variant (the SDK's `*ChunkGeneratedMetadata`)
 * the document's chunks carry; see `generated-metadata.ts` for the mapping of every parser.
 */
export type DocumentKind = 'markdown' | 'text' | 'pdf' | 'code' | 'image' | 'audio' | 'video';

/** An image document's picture (its chunks are `image_url` chunks whose text is the OCR text). */
export interface ImageInfo {
  mimeType: string;
  width: number;
  height: number;
}

export interface ParsedDocument {
  kind: DocumentKind;
  /** MIME type reported in generated metadata (one the declared variant allows). */
  fileType: string;
  fileExtension: string | null;
  fileSize: number;
  language: string | null;
  blocks: Block[];
  frontmatter?: Record<string, unknown>;
  totalPages?: number;
  /** Repeated before every chunk's text (e.g. a CSV header row). */
  chunkPrefix?: string;
  /** The document's own title (front matter `title`, HTML `<title>`), when it has one. */
  title?: string | null;
  /** Set for images: the chunks are `image_url` chunks of this picture. */
  image?: ImageInfo;
  /** Set for audio and video: the chunks are `audio_url` or `video_url` chunks of this recording. */
  media?: MediaInfo;
}

/** An audio or video recording (from ffprobe). */
export interface MediaInfo {
  durationSeconds: number | null;
  /** Of the first audio track, as recorded. */
  sampleRate: number | null;
  channels: number | null;
  hasAudio: boolean;
  video: { width: number | null; height: number | null; fps: number | null; frameCount: number | null } | null;
}

export class UnsupportedFileError extends Error {
  readonly code = 'unsupported_file_type';
}
export class ParseError extends Error {
  readonly code = 'parse_error';
}
/** Audio and video on a server without ffmpeg or a speech recogniser: refused with their own codes. */
export class UnsupportedMediaError extends Error {
  constructor(
    message: string,
    readonly code: 'audio_not_supported' | 'video_not_supported',
  ) {
    super(message);
  }
}
/** Audio or video longer than `LARDER_MEDIA_MAX_SECONDS`. */
export class MediaTooLongError extends Error {
  readonly code = 'media_too_long';
}
/** An image larger than `LARDER_OCR_MAX_PIXELS`. */
export class ImageTooLargeError extends Error {
  readonly code = 'image_too_large';
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
export const countWords = (text: string) => (text.match(WORD) ?? []).length;

/**
 * Token estimate used for budgets and `usage_tokens`: word pieces of at most 6 characters plus
 * punctuation marks, close to what WordPiece/BPE tokenizers produce for English prose and code.
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu))
    n += m[0].length > 6 ? Math.ceil(m[0].length / 6) : 1;
  return n;
}

/**
 * The text cut to at most `max` tokens of `estimateTokens`, keeping its beginning (`keep: 'head'`) or
 * its end (`'tail'`); a word longer than the budget left is cut inside.
 */
export function truncateToTokens(text: string, max: number, keep: 'head' | 'tail'): string {
  const pieces = [...text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)];
  const cost = (m: RegExpMatchArray) => (m[0].length > 6 ? Math.ceil(m[0].length / 6) : 1);
  let left = Math.max(0, max);
  if (keep === 'head') {
    for (const m of pieces) {
      const c = cost(m);
      if (c > left) return text.slice(0, m.index + left * 6);
      left -= c;
    }
    return text;
  }
  for (let i = pieces.length - 1; i >= 0; i--) {
    const m = pieces[i];
    const c = cost(m);
    if (c > left) return text.slice(m.index + m[0].length - left * 6);
    left -= c;
  }
  return text;
}

/**
 * `generated_metadata` of a chunk: the variants the official clients declare (the
 * SDK's `MarkdownChunkGeneratedMetadata`, `TextChunkGeneratedMetadata`, `PdfChunkGeneratedMetadata`,
 * `CodeChunkGeneratedMetadata`, `AudioChunkGeneratedMetadata`, `VideoChunkGeneratedMetadata`,
 * `ImageChunkGeneratedMetadata`; discriminator `type`). A strict client
 * (the Python SDK validates literals) rejects any other `type`/`file_type` pairing, so every parser's
 * output is mapped onto one of these:
 *
 * | parser                                   | `type`     | `file_type`                         |
 * |------------------------------------------|------------|-------------------------------------|
 * | Markdown, HTML/XHTML, DOCX               | `markdown` | `text/markdown` (converted to Markdown structure) |
 * | plain text, YAML, XML, INI, logs, CSV/TSV, JSON | `text` | `text/plain`                     |
 * | e-mail (`.eml`, `message/rfc822`)        | `text`     | `message/rfc822`                    |
 * | source code                              | `code`     | the file's own MIME type (free string) |
 * | PDF                                      | `pdf`      | `application/pdf`                   |
 * | images (OCR)                             | `image`    | the image's MIME type               |
 * | audio (transcribed)                      | `audio`    | the audio's MIME type               |
 * | video (transcribed, frames OCR'd)        | `video`    | the video's MIME type               |
 *
 * The original format stays visible in `file_extension`. Larder adds fields beyond the declared
 * ones, which the clients accept as extra keys: `page` and `pages` on `pdf` chunks, and
 * `start_seconds` and `end_seconds` (the stretch of the recording) on `audio` and `video` chunks.
 */
export type MarkdownHeading = {
  level: number;
  text: string;
};

export type MarkdownChunkMetadata = {
  type: 'markdown';
  file_type: 'text/markdown';
  language?: string | null;
  word_count?: number | null;
  file_size?: number | null;
  chunk_headings: MarkdownHeading[];
  heading_context: MarkdownHeading[];
  start_line: number;
  num_lines: number;
  file_extension?: string | null;
  frontmatter: Record<string, unknown>;
};

export type TextChunkMetadata = {
  type: 'text';
  file_type: 'text/plain' | 'message/rfc822';
  language?: string | null;
  word_count?: number | null;
  file_size?: number | null;
  start_line: number;
  num_lines: number;
  file_extension?: string | null;
};

export type PdfChunkMetadata = {
  type: 'pdf';
  file_type: 'application/pdf';
  total_pages?: number | null;
  total_size?: number | null;
  file_extension?: string | null;
  /** Larder: the first page of the chunk, and every page it spans. */
  page?: number | null;
  pages?: number[];
};

export type CodeChunkMetadata = {
  type: 'code';
  file_type: string;
  language?: string | null;
  word_count?: number | null;
  file_size?: number | null;
  start_line: number;
  num_lines: number;
  file_extension?: string | null;
};

export type ImageChunkMetadata = {
  type: 'image';
  file_type: string;
  file_size?: number | null;
  width?: number | null;
  height?: number | null;
  file_extension?: string | null;
};

export type AudioChunkMetadata = {
  type: 'audio';
  file_type: string;
  file_size?: number | null;
  total_duration_seconds?: number | null;
  sample_rate?: number | null;
  channels?: number | null;
  file_extension?: string | null;
  /** Larder: the seconds of the recording the chunk covers. */
  start_seconds?: number;
  end_seconds?: number;
};

export type VideoChunkMetadata = {
  type: 'video';
  file_type: string;
  file_size?: number | null;
  total_duration_seconds?: number | null;
  fps?: number | null;
  width?: number | null;
  height?: number | null;
  frame_count?: number | null;
  has_audio_stream: boolean;
  file_extension?: string | null;
  /** Larder: the seconds of the recording the chunk covers. */
  start_seconds?: number;
  end_seconds?: number;
};

export type GeneratedMetadata =
  | MarkdownChunkMetadata
  | TextChunkMetadata
  | PdfChunkMetadata
  | CodeChunkMetadata
  | ImageChunkMetadata
  | AudioChunkMetadata
  | VideoChunkMetadata;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const int0 = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const headings = (v: unknown): MarkdownHeading[] =>
  Array.isArray(v)
    ? v
        .filter((h): h is { level: unknown; text: unknown } => !!h && typeof h === 'object')
        .filter((h) => typeof h.level === 'number' && typeof h.text === 'string')
        .map((h) => ({ level: h.level as number, text: h.text as string }))
    : [];
/** What audio and video metadata share: the recording's type, size and length. */
const recording = (m: Record<string, unknown>, defaultType: string) => ({
  file_type: str(m.file_type) ?? defaultType,
  file_size: num(m.file_size) ?? undefined,
  total_duration_seconds: num(m.total_duration_seconds),
});
/** The stretch of the recording a chunk covers (Larder's addition). */
const timing = (m: Record<string, unknown>) => ({
  start_seconds: num(m.start_seconds) ?? undefined,
  end_seconds: num(m.end_seconds) ?? undefined,
});
/** Drops absent (undefined) fields, so the JSON has no `null` where the declared type has no null. */
const optional = <T extends GeneratedMetadata>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/**
 * Any stored generated metadata as a declared variant. New chunks are produced in these shapes
 * already; chunks indexed by earlier releases (HTML as `markdown` with `file_type: text/html`, CSV and
 * JSON as `text` with their own MIME types) are mapped when they are answered, so a replayed or copied
 * index answers conforming shapes too. Unknown shapes become `text` (or null when there is nothing).
 */
export function conformGeneratedMetadata(m: Record<string, unknown> | null | undefined): GeneratedMetadata | null {
  if (!m || typeof m !== 'object') return null;
  const common = { file_extension: str(m.file_extension) ?? undefined };
  switch (m.type) {
    case 'markdown':
      return optional<MarkdownChunkMetadata>({
        type: 'markdown',
        file_type: 'text/markdown',
        language: str(m.language) ?? undefined,
        word_count: num(m.word_count) ?? undefined,
        file_size: num(m.file_size) ?? undefined,
        chunk_headings: headings(m.chunk_headings),
        heading_context: headings(m.heading_context),
        start_line: int0(m.start_line),
        num_lines: int0(m.num_lines),
        ...common,
        frontmatter:
          m.frontmatter && typeof m.frontmatter === 'object' && !Array.isArray(m.frontmatter)
            ? (m.frontmatter as Record<string, unknown>)
            : {},
      });
    case 'pdf':
      return optional<PdfChunkMetadata>({
        type: 'pdf',
        file_type: 'application/pdf',
        total_pages: num(m.total_pages),
        total_size: num(m.total_size) ?? undefined,
        ...common,
        page: m.page === undefined ? undefined : num(m.page),
        pages: Array.isArray(m.pages) ? m.pages.filter((p): p is number => typeof p === 'number') : undefined,
      });
    case 'code':
      return optional<CodeChunkMetadata>({
        type: 'code',
        file_type: str(m.file_type) ?? 'text/plain',
        language: str(m.language),
        word_count: num(m.word_count) ?? undefined,
        file_size: num(m.file_size) ?? undefined,
        start_line: int0(m.start_line),
        num_lines: int0(m.num_lines),
        ...common,
      });
    case 'image':
      return optional<ImageChunkMetadata>({
        type: 'image',
        file_type: str(m.file_type) ?? 'image/jpeg',
        file_size: num(m.file_size) ?? undefined,
        width: num(m.width),
        height: num(m.height),
        ...common,
      });
    case 'audio':
      return optional<AudioChunkMetadata>({
        type: 'audio',
        ...recording(m, 'audio/mpeg'),
        sample_rate: num(m.sample_rate),
        channels: num(m.channels),
        ...common,
        ...timing(m),
      });
    case 'video':
      return optional<VideoChunkMetadata>({
        type: 'video',
        ...recording(m, 'video/mp4'),
        fps: num(m.fps),
        width: num(m.width),
        height: num(m.height),
        frame_count: num(m.frame_count),
        has_audio_stream: m.has_audio_stream === true,
        ...common,
        ...timing(m),
      });
    default:
      return optional<TextChunkMetadata>({
        type: 'text',
        file_type: m.file_type === 'message/rfc822' ? 'message/rfc822' : 'text/plain',
        language: str(m.language) ?? undefined,
        word_count: num(m.word_count) ?? undefined,
        file_size: num(m.file_size) ?? undefined,
        start_line: int0(m.start_line),
        num_lines: int0(m.num_lines),
        ...common,
      });
  }
}

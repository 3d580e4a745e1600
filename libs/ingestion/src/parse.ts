import { extname } from 'path';
import type { Ocr, Transcriber } from '@larder/ai';
import { ParsedDocument, UnsupportedFileError, UnsupportedMediaError } from './document';
import { parseCode, CODE_LANGUAGES } from './code.parser';
import { parseHtml } from './html.parser';
import { DEFAULT_PARSE_LIMITS, ParseLimits, parseInThread } from './parse-thread.host';
import { IMAGE_TYPES, parseImage } from './image.parser';
import { AUDIO_TYPES, parseMedia, VIDEO_TYPES } from './media.parser';
import { MediaTools } from './media.tools';
import { parseCsvText, parseJsonText, parseMarkdown, parsePlainText } from './text.parsers';

export type ParserKind =
  'text' | 'markdown' | 'html' | 'pdf' | 'docx' | 'csv' | 'json' | 'code' | 'image' | 'audio' | 'video';

const BY_EXTENSION: Record<string, ParserKind> = {
  pdf: 'pdf',
  docx: 'docx',
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  csv: 'csv',
  tsv: 'csv',
  json: 'json',
  ...Object.fromEntries(Object.keys(IMAGE_TYPES).map((e) => [e, 'image' as const])),
  ...Object.fromEntries(Object.keys(AUDIO_TYPES).map((e) => [e, 'audio' as const])),
  ...Object.fromEntries(Object.keys(VIDEO_TYPES).map((e) => [e, 'video' as const])),
  ...Object.fromEntries(
    ['txt', 'text', 'log', 'rst', 'eml', 'ini', 'cfg', 'conf', 'toml', 'yaml', 'yml', 'xml', 'tex'].map((e) => [
      e,
      'text' as const,
    ]),
  ),
};

const BY_MIME: Record<string, ParserKind> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'application/json': 'json',
  'message/rfc822': 'text',
  ...Object.fromEntries(Object.values(IMAGE_TYPES).map((m) => [m, 'image' as const])),
  'image/jpg': 'image',
  'image/x-ms-bmp': 'image',
};

/** Picks a parser from the file name's extension, then the MIME type; null when unsupported. */
export function parserFor(filename: string, mimeType: string): ParserKind | null {
  const ext = extname(filename).slice(1).toLowerCase();
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  const byExt = BY_EXTENSION[ext] ?? (CODE_LANGUAGES[ext] ? 'code' : undefined);
  if (byExt) return byExt;
  if (BY_MIME[mime]) return BY_MIME[mime];
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('text/')) return 'text';
  return null;
}

function decodeText(data: Buffer): string {
  if (data.includes(0))
    throw new UnsupportedFileError('The file looks binary (it contains NUL bytes) and its type is not supported');
  return new TextDecoder('utf-8').decode(data).replace(/^\uFEFF/, '');
}

export interface ParseOptions {
  /** Reads text in images; without it images are unsupported (`LARDER_OCR=false`). */
  ocr?: Ocr | null;
  /** Images with more pixels are refused (`image_too_large`) before OCR. */
  maxImagePixels?: number;
  /** Recognises speech in audio and video; without it (or without `media`) they are refused, naming what to install. */
  transcriber?: Transcriber | null;
  /** ffmpeg, ffprobe and the bounds of audio and video ingestion; null when ffmpeg is not installed. */
  media?: MediaTools | null;
  /** Cancels a running OCR job, tool or parse thread (the ingestion attempt's deadline). */
  signal?: AbortSignal;
  /** The memory a PDF or DOCX parse may take (DEFAULT_PARSE_LIMITS without it). */
  limits?: ParseLimits;
}

const SUPPORTED =
  'supported are text, Markdown, HTML, PDF, DOCX, CSV, JSON, source code, images (PNG, JPEG, WebP, GIF, BMP, TIFF), audio and video';

/** What this server lacks to ingest audio and video, as an instruction; null when it has everything. */
export function missingForMedia(options: Pick<ParseOptions, 'transcriber' | 'media'>): string | null {
  const missing = [
    ...(options.media ? [] : ['ffmpeg (to decode it)']),
    ...(options.transcriber
      ? []
      : [
          'a speech recogniser (pocketsphinx with pocketsphinx-en-us, or LARDER_TRANSCRIPTION_URL set to an OpenAI-compatible /v1/audio/transcriptions endpoint)',
        ]),
  ];
  if (!missing.length) return null;
  return `this server lacks ${missing.join(' and ')}; install them (apt-get install ffmpeg pocketsphinx pocketsphinx-en-us) and restart it`;
}

/**
 * Parses file content into blocks (PDF and DOCX in a parse thread of bounded memory); throws UnsupportedFileError, UnsupportedMediaError or ParseError with a message for `last_error`.
 */
export async function parseFile(
  data: Buffer,
  filename: string,
  mimeType: string,
  options: ParseOptions = {},
): Promise<ParsedDocument> {
  const kind = parserFor(filename, mimeType);
  const extension = extname(filename).slice(1).toLowerCase() || null;
  const meta = { fileSize: data.length, extension };
  switch (kind) {
    case 'pdf':
    case 'docx':
      return parseInThread(kind, data, meta, options.limits ?? DEFAULT_PARSE_LIMITS, options.signal);
    case 'html':
      return parseHtml(decodeText(data), meta);
    case 'markdown':
      return parseMarkdown({ text: decodeText(data), ...meta, mimeType });
    case 'csv':
      return parseCsvText({ text: decodeText(data), ...meta, mimeType });
    case 'json':
      return parseJsonText({ text: decodeText(data), ...meta, mimeType });
    case 'code':
      return parseCode({
        text: decodeText(data),
        ...meta,
        mimeType:
          mimeType.startsWith('text/') || mimeType.startsWith('application/') ? mimeType.split(';')[0] : 'text/plain',
      });
    case 'text':
      return parsePlainText({
        text: decodeText(data),
        ...meta,
        mimeType: extension === 'eml' ? 'message/rfc822' : mimeType.split(';')[0].trim().toLowerCase(),
      });
    case 'image':
      if (!options.ocr)
        throw new UnsupportedFileError(`Images are not ingested on this server: OCR is turned off (LARDER_OCR=false)`);
      return parseImage(data, { ...meta, mimeType }, options.ocr, {
        maxPixels: options.maxImagePixels ?? Infinity,
        signal: options.signal,
      });
    case 'audio':
    case 'video': {
      const missing = missingForMedia(options);
      if (missing || !options.transcriber || !options.media)
        throw new UnsupportedMediaError(
          `${kind === 'audio' ? 'Audio' : 'Video'} files ('${mimeType}'${extension ? `, .${extension}` : ''}) cannot be ingested: ${missing}`,
          kind === 'audio' ? 'audio_not_supported' : 'video_not_supported',
        );
      return parseMedia(
        kind,
        data,
        { ...meta, mimeType },
        { tools: options.media, transcriber: options.transcriber, ocr: options.ocr ?? null, signal: options.signal },
      );
    }
    default:
      throw new UnsupportedFileError(
        `Unsupported file type '${mimeType}'${extension ? ` (.${extension})` : ''}: ${SUPPORTED}`,
      );
  }
}

/**
 * Bumped when parsing or chunking changes, so content-addressed chunk artifacts are rebuilt.
 * 2: declared generated-metadata shapes, chunk context (title, heading path) kept beside the
 * text, images through OCR.
 * 3: line numbers (`start_line`) 0-based, as upstream reports them.
 * 4: a chunk's offset and lines are those of its own text (a part of a split block, an overlap tail).
 */
export const PARSER_VERSION = 4;

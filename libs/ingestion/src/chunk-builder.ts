/** A chunk made from the pieces packed into it: its text, line range, generated metadata and embedding input. */
import { countWords, estimateTokens, ParsedDocument } from './document';
import { GeneratedMetadata } from './generated-metadata';
import { Chunk, ChunkContext, ChunkingMode, embeddingInput } from './chunking';
import { Piece, rendered } from './chunk-pieces';

export function makeChunk(
  doc: ParsedDocument,
  pieces: Piece[],
  index: number,
  prefix: string,
  filename: string,
  mode: ChunkingMode,
): Chunk {
  const body = pieces
    .map((p, i) => {
      const t = rendered(doc, p.block, p.text);
      // PDF lines of one page run on with a newline; everything else is separated by a blank line
      const sep = i === 0 ? '' : doc.kind === 'pdf' && p.block.page === pieces[i - 1].block.page ? '\n' : '\n\n';
      return sep + t;
    })
    .join('');
  const text = prefix + body;
  const first = pieces[0];
  const startLine = Math.min(...pieces.map((p) => p.startLine).filter((n) => n > 0), Number.MAX_SAFE_INTEGER);
  const endLine = Math.max(0, ...pieces.map((p) => p.endLine));
  // reported 0-based, as upstream does (mgrep prints start_line + 1); num_lines 0: the chunk has no line range
  const lineMeta =
    startLine !== Number.MAX_SAFE_INTEGER
      ? { start_line: startLine - 1, num_lines: endLine - startLine + 1 }
      : { start_line: 0, num_lines: 0 };
  const common = doc.fileExtension ? { file_extension: doc.fileExtension } : {};
  const headingContext = first.block.kind === 'heading' ? first.headings.slice(0, -1) : first.headings;
  let generated: GeneratedMetadata;
  switch (doc.kind) {
    case 'markdown':
      generated = {
        type: 'markdown',
        file_type: 'text/markdown',
        word_count: countWords(body),
        file_size: doc.fileSize,
        chunk_headings: pieces
          .filter((p) => p.block.kind === 'heading')
          .map((p) => ({ level: p.block.level ?? 1, text: p.text })),
        heading_context: headingContext,
        ...lineMeta,
        ...common,
        frontmatter: doc.frontmatter ?? {},
      };
      break;
    case 'pdf': {
      const pages = [...new Set(pieces.map((p) => p.block.page).filter((x): x is number => !!x))].sort((a, b) => a - b);
      generated = {
        type: 'pdf',
        file_type: 'application/pdf',
        total_pages: doc.totalPages ?? null,
        total_size: doc.fileSize,
        ...common,
        pages,
        page: pages[0] ?? null,
      };
      break;
    }
    case 'code':
      generated = {
        type: 'code',
        file_type: doc.fileType,
        language: doc.language,
        word_count: countWords(body),
        file_size: doc.fileSize,
        ...lineMeta,
        ...common,
      };
      break;
    case 'image':
      generated = {
        type: 'image',
        file_type: doc.fileType,
        file_size: doc.fileSize,
        width: doc.image?.width ?? null,
        height: doc.image?.height ?? null,
        ...common,
      };
      break;
    case 'audio':
    case 'video': {
      const media = doc.media;
      const timing = {
        start_seconds: Math.min(...pieces.map((p) => p.block.startSeconds ?? 0)),
        end_seconds: Math.max(...pieces.map((p) => p.block.endSeconds ?? 0)),
      };
      generated =
        doc.kind === 'audio'
          ? {
              type: 'audio',
              file_type: doc.fileType,
              file_size: doc.fileSize,
              total_duration_seconds: media?.durationSeconds ?? null,
              sample_rate: media?.sampleRate ?? null,
              channels: media?.channels ?? null,
              ...common,
              ...timing,
            }
          : {
              type: 'video',
              file_type: doc.fileType,
              file_size: doc.fileSize,
              total_duration_seconds: media?.durationSeconds ?? null,
              fps: media?.video?.fps ?? null,
              width: media?.video?.width ?? null,
              height: media?.video?.height ?? null,
              frame_count: media?.video?.frameCount ?? null,
              has_audio_stream: media?.hasAudio ?? false,
              ...common,
              ...timing,
            };
      break;
    }
    default:
      generated = {
        type: 'text',
        file_type: doc.fileType === 'message/rfc822' ? 'message/rfc822' : 'text/plain',
        word_count: countWords(body),
        file_size: doc.fileSize,
        ...lineMeta,
        ...common,
      };
  }
  const context: ChunkContext = { title: doc.title ?? null, headings: headingContext.map((h) => h.text) };
  const embedText = embeddingInput({ text, context }, { filename, mode, fileContext: false });
  return {
    chunkIndex: index,
    type: doc.image ? 'image_url' : doc.kind === 'audio' ? 'audio_url' : doc.kind === 'video' ? 'video_url' : 'text',
    mimeType: doc.image?.mimeType ?? (doc.media ? doc.fileType : 'text/plain'),
    text,
    embedText,
    context,
    offset: first.offset,
    tokens: estimateTokens(text),
    generatedMetadata: generated,
  };
}

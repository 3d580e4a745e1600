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
}

export type DocumentKind = 'markdown' | 'text' | 'pdf' | 'code';

export interface ParsedDocument {
  kind: DocumentKind;
  /** MIME type reported in generated metadata. */
  fileType: string;
  fileExtension: string | null;
  fileSize: number;
  language: string | null;
  blocks: Block[];
  frontmatter?: Record<string, unknown>;
  totalPages?: number;
  /** Repeated before every chunk's text (e.g. a CSV header row). */
  chunkPrefix?: string;
}

export class UnsupportedFileError extends Error {
  readonly code = 'unsupported_file_type';
}
export class ParseError extends Error {
  readonly code = 'parse_error';
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
export const countWords = (text: string) => (text.match(WORD) ?? []).length;

/**
 * Token estimate used for budgets and `usage_tokens`: word pieces of at most 6 characters plus
 * punctuation marks, close to what WordPiece/BPE tokenizers produce for English prose and code.
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) n += m[0].length > 6 ? Math.ceil(m[0].length / 6) : 1;
  return n;
}

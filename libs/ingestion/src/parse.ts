import { extname } from 'path';
import { ParsedDocument, UnsupportedFileError } from './document';
import { parseCode, CODE_LANGUAGES } from './code.parser';
import { parseHtml } from './html.parser';
import { parseDocx, parsePdf } from './binary.parsers';
import { parseCsvText, parseJsonText, parseMarkdown, parsePlainText } from './text.parsers';

export type ParserKind = 'text' | 'markdown' | 'html' | 'pdf' | 'docx' | 'csv' | 'json' | 'code';

/** Picks a parser from the file name's extension, then the MIME type; null when unsupported. */
export function parserFor(filename: string, mimeType: string): ParserKind | null {
  const ext = extname(filename).slice(1).toLowerCase();
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  if (ext === 'pdf' || mime === 'application/pdf') return 'pdf';
  if (ext === 'docx' || mime === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document') return 'docx';
  if (['md', 'markdown', 'mdx'].includes(ext) || mime === 'text/markdown' || mime === 'text/x-markdown') return 'markdown';
  if (['html', 'htm', 'xhtml'].includes(ext) || mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (['csv', 'tsv'].includes(ext) || mime === 'text/csv' || mime === 'text/tab-separated-values') return 'csv';
  if (ext === 'json' || mime === 'application/json') return 'json';
  if (CODE_LANGUAGES[ext]) return 'code';
  if (['txt', 'text', 'log', 'rst', 'eml', 'ini', 'cfg', 'conf', 'toml', 'yaml', 'yml', 'xml', 'tex'].includes(ext) || mime.startsWith('text/') || mime === 'message/rfc822') return 'text';
  return null;
}

function decodeText(data: Buffer): string {
  if (data.includes(0)) throw new UnsupportedFileError('The file looks binary (it contains NUL bytes) and its type is not supported');
  return new TextDecoder('utf-8').decode(data).replace(/^\uFEFF/, '');
}

/** Parses file content into blocks; throws UnsupportedFileError or ParseError with a message for `last_error`. */
export async function parseFile(data: Buffer, filename: string, mimeType: string): Promise<ParsedDocument> {
  const kind = parserFor(filename, mimeType);
  const extension = extname(filename).slice(1).toLowerCase() || null;
  const meta = { fileSize: data.length, extension };
  switch (kind) {
    case 'pdf':
      return parsePdf(data, meta);
    case 'docx':
      return parseDocx(data, meta);
    case 'html':
      return parseHtml(decodeText(data), { ...meta, fileType: 'text/html' });
    case 'markdown':
      return parseMarkdown({ text: decodeText(data), ...meta, mimeType });
    case 'csv':
      return parseCsvText({ text: decodeText(data), ...meta, mimeType });
    case 'json':
      return parseJsonText({ text: decodeText(data), ...meta, mimeType });
    case 'code':
      return parseCode({ text: decodeText(data), ...meta, mimeType: mimeType.startsWith('text/') || mimeType.startsWith('application/') ? mimeType.split(';')[0] : 'text/plain' });
    case 'text':
      return parsePlainText({ text: decodeText(data), ...meta, mimeType });
    default:
      throw new UnsupportedFileError(`Unsupported file type '${mimeType}'${extension ? ` (.${extension})` : ''}: supported are text, Markdown, HTML, PDF, DOCX, CSV, JSON and source code`);
  }
}

/** Bumped when parsing or chunking changes, so content-addressed chunk artifacts are rebuilt. */
export const PARSER_VERSION = 2;

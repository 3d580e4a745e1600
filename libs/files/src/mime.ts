import { extname } from 'path';

const BY_EXTENSION: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xml': 'application/xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ts': 'text/x-typescript',
  '.js': 'text/javascript',
  '.py': 'text/x-python',
};

export const MIME_PATTERN = /^[\w.+-]+\/[\w.+-]+$/;

/** The part's declared type unless it is missing or generic, then a guess from the extension. */
export function resolveMimeType(declared: string | undefined, filename: string): string {
  const d = (declared ?? '').split(';')[0].trim().toLowerCase();
  if (d && d !== 'application/octet-stream' && MIME_PATTERN.test(d)) return d;
  return BY_EXTENSION[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

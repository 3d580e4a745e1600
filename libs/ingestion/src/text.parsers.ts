import { parse as parseCsv } from 'csv-parse/sync';
import { Block, ParsedDocument, ParseError } from './document';

interface Source {
  text: string;
  fileSize: number;
  extension: string | null;
  mimeType: string;
}

/** Splits text into paragraphs separated by blank lines, keeping line numbers and offsets. */
export function paragraphs(text: string, firstLine = 1, baseOffset = 0, kind: Block['kind'] = 'paragraph'): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let cur: string[] = [];
  let start = 0;
  let startOffset = 0;
  let offset = 0;
  const flush = (endIdx: number) => {
    if (cur.length && cur.join('').trim()) {
      // the offset of the text itself, past the first line's indentation
      const lead = cur[0].length - cur[0].trimStart().length;
      blocks.push({
        text: cur.join('\n').trim(),
        kind,
        startLine: firstLine + start,
        endLine: firstLine + endIdx,
        offset: baseOffset + startOffset + lead,
      });
    }
    cur = [];
  };
  lines.forEach((line, i) => {
    if (!line.trim()) {
      flush(i - 1);
    } else {
      if (!cur.length) {
        start = i;
        startOffset = offset;
      }
      cur.push(line);
    }
    offset += line.length + 1;
  });
  flush(lines.length - 1);
  return blocks;
}

export function parsePlainText(src: Source): ParsedDocument {
  return {
    kind: 'text',
    fileType: src.mimeType === 'message/rfc822' ? 'message/rfc822' : 'text/plain',
    fileExtension: src.extension,
    fileSize: src.fileSize,
    language: null,
    blocks: paragraphs(src.text.replace(/\r\n?/g, '\n')),
  };
}

/** Markdown: YAML front matter, ATX and setext headings, fenced code kept whole, paragraphs and lists. */
export function parseMarkdown(src: Source): ParsedDocument {
  let text = src.text.replace(/\r\n?/g, '\n');
  let frontmatter: Record<string, unknown> | undefined;
  let lineBase = 1;
  let offsetBase = 0;
  const fm = /^---\n([\s\S]*?)\n(?:---|\.\.\.)\n/.exec(text);
  if (fm) {
    try {
      // loaded on the first front matter, not at start
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const v = (require('yaml') as typeof import('yaml')).parse(fm[1]) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) frontmatter = v as Record<string, unknown>;
    } catch (err) {
      throw new ParseError(`Invalid YAML front matter: ${(err as Error).message.split('\n')[0]}`);
    }
    lineBase += fm[0].split('\n').length - 1;
    offsetBase = fm[0].length;
    text = text.slice(fm[0].length);
  }
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let para: { start: number; offset: number; lines: string[]; kind: Block['kind'] } | null = null;
  let offset = offsetBase;
  const flush = (end: number) => {
    if (para && para.lines.join('').trim()) {
      const lead = para.lines[0].length - para.lines[0].trimStart().length;
      blocks.push({
        text: para.lines.join('\n').trim(),
        kind: para.kind,
        startLine: lineBase + para.start,
        endLine: lineBase + end,
        offset: para.offset + lead,
      });
    }
    para = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush(i - 1);
      const start = i;
      const startOffset = offset;
      const body = [line];
      offset += line.length + 1;
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) {
        body.push(lines[i]);
        offset += lines[i].length + 1;
        i++;
      }
      if (i < lines.length) {
        body.push(lines[i]);
        offset += lines[i].length + 1;
      }
      blocks.push({
        text: body.join('\n'),
        kind: 'code',
        startLine: lineBase + start,
        endLine: lineBase + Math.min(i, lines.length - 1),
        offset: startOffset,
      });
      continue;
    }
    const atx = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    const setext =
      i + 1 < lines.length && line.trim() && !para && /^(=+|-+)\s*$/.test(lines[i + 1]) && !/^\s*[-*+]\s/.test(line);
    if (atx || setext) {
      flush(i - 1);
      const level = atx ? atx[1].length : lines[i + 1].trim().startsWith('=') ? 1 : 2;
      const headingText = atx ? atx[2] : line.trim();
      blocks.push({
        text: headingText,
        kind: 'heading',
        level,
        startLine: lineBase + i,
        endLine: lineBase + i + (setext ? 1 : 0),
        offset,
      });
      if (setext) {
        offset += line.length + 1;
        i++;
      }
      offset += lines[i].length + 1;
      continue;
    }
    if (!line.trim()) {
      flush(i - 1);
    } else {
      const kind: Block['kind'] = /^\s*([-*+]|\d+[.)])\s/.test(line)
        ? 'list'
        : /^\s*\|/.test(line)
          ? 'table'
          : 'paragraph';
      if (!para) para = { start: i, offset, lines: [], kind };
      para.lines.push(line);
    }
    offset += line.length + 1;
  }
  flush(lines.length - 1);
  const title = typeof frontmatter?.title === 'string' && frontmatter.title.trim() ? frontmatter.title.trim() : null;
  return {
    kind: 'markdown',
    fileType: 'text/markdown',
    fileExtension: src.extension,
    fileSize: src.fileSize,
    language: null,
    blocks,
    frontmatter: frontmatter ?? {},
    title,
  };
}

/** CSV: one block per row; the header row is repeated at the top of every chunk. Reported as `text/plain` (the declared generated-metadata variants have no CSV type). */
export function parseCsvText(src: Source): ParsedDocument {
  let rows: string[][];
  try {
    const parsed: unknown = parseCsv(src.text, {
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      delimiter: src.extension === 'tsv' ? '\t' : [',', ';', '\t'],
    });
    rows = parsed as string[][];
  } catch (err) {
    throw new ParseError(`Invalid CSV: ${(err as Error).message}`);
  }
  if (!rows.length) return plainTextDocument(src, []);
  const [header, ...body] = rows;
  const headerLine = header.join(', ');
  let offset = 0;
  const blocks: Block[] = body.map((r, i) => {
    const text = header.map((h, j) => `${h}: ${r[j] ?? ''}`).join('; ');
    const b: Block = { text, kind: 'row', startLine: i + 2, endLine: i + 2, offset };
    offset += text.length + 1;
    return b;
  });
  return { ...plainTextDocument(src, blocks), chunkPrefix: headerLine };
}

/** JSON: one block per top-level member (or array element), as `path: value` lines (plain text: `text/plain`). */
export function parseJsonText(src: Source): ParsedDocument {
  let value: unknown;
  try {
    value = JSON.parse(src.text);
  } catch (err) {
    throw new ParseError(`Invalid JSON: ${(err as Error).message}`);
  }
  const lines = (prefix: string, v: unknown, out: string[]) => {
    if (v !== null && typeof v === 'object') {
      const entries = membersOf(v);
      if (!entries.length) out.push(`${prefix}: ${Array.isArray(v) ? '[]' : '{}'}`);
      for (const [k, x] of entries) lines(prefix ? `${prefix}.${k}` : k, x, out);
    } else {
      out.push(`${prefix || '$'}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
    }
  };
  const top = value !== null && typeof value === 'object' ? membersOf(value) : [['', value] as const];
  let offset = 0;
  const blocks: Block[] = top.map(([k, v]) => {
    const out: string[] = [];
    lines(k, v, out);
    const text = out.join('\n');
    const b: Block = { text, kind: 'paragraph', startLine: 0, endLine: 0, offset };
    offset += text.length + 1;
    return b;
  });
  return plainTextDocument(src, blocks);
}

/** An object's members, or an array's elements under their indexes. */
function membersOf(v: object): Array<readonly [string, unknown]> {
  return Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
}

/** A document of the given blocks read as plain text (`text/plain`: CSV rows and JSON members). */
function plainTextDocument(src: Source, blocks: Block[]): ParsedDocument {
  return {
    kind: 'text',
    fileType: 'text/plain',
    fileExtension: src.extension,
    fileSize: src.fileSize,
    language: null,
    blocks,
  };
}

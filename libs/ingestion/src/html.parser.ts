import { Block, ParsedDocument } from './document';

const BLOCK_TAGS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'li',
  'tr',
  'pre',
  'blockquote',
  'dd',
  'dt',
  'figcaption',
  'caption',
  'table',
  'ul',
  'ol',
  'br',
  'hr',
  'body',
]);
const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'nav']);

/**
 * HTML (and DOCX, converted to HTML first): headings h1–h6 become heading blocks, block elements
 * paragraphs, `pre` code, table rows rows; scripts, styles and navigation are dropped. The result is
 * Markdown-structured (headings are written `#`), reported as `markdown` / `text/markdown`.
 */
export function parseHtml(html: string, meta: { fileSize: number; extension: string | null }): ParsedDocument {
  const blocks: Block[] = [];
  let buf = '';
  let kind: Block['kind'] = 'paragraph';
  let level = 0;
  let skip = 0;
  let pre = 0;
  let offset = 0;
  let title = '';
  let inTitle = false;
  const flush = () => {
    const text = pre ? buf.replace(/^\n+|\s+$/g, '') : buf.replace(/\s+/g, ' ').trim();
    if (text) {
      blocks.push({ text, kind, ...(kind === 'heading' ? { level } : {}), startLine: 0, endLine: 0, offset });
      offset += text.length + 1;
    }
    buf = '';
    kind = 'paragraph';
  };
  // loaded on the first HTML document, not at start
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Parser } = require('htmlparser2') as typeof import('htmlparser2');
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIP_TAGS.has(name)) {
          skip++;
          return;
        }
        if (skip) return;
        if (/^h[1-6]$/.test(name)) {
          flush();
          kind = 'heading';
          level = Number(name[1]);
        } else if (name === 'pre') {
          flush();
          pre++;
          kind = 'code';
        } else if (BLOCK_TAGS.has(name)) {
          if (name === 'br' && !pre) buf += '\n';
          else if (name === 'td' || name === 'th') buf += ' | ';
          else flush();
          if (name === 'li') kind = 'list';
          if (name === 'tr') kind = 'table';
        } else if (name === 'td' || name === 'th') {
          buf += buf ? ' | ' : '';
        }
      },
      ontext(text) {
        if (inTitle) title += text;
        if (!skip) buf += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIP_TAGS.has(name)) {
          skip = Math.max(0, skip - 1);
          return;
        }
        if (skip) return;
        if (/^h[1-6]$/.test(name) || BLOCK_TAGS.has(name) || name === 'pre') {
          flush();
          if (name === 'pre') pre = Math.max(0, pre - 1);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  if (!blocks.some((b) => b.kind === 'heading') && title.trim())
    blocks.unshift({ text: title.trim(), kind: 'heading', level: 1, startLine: 0, endLine: 0, offset: 0 });
  const t = title.replace(/\s+/g, ' ').trim();
  return {
    kind: 'markdown',
    fileType: 'text/markdown',
    fileExtension: meta.extension,
    fileSize: meta.fileSize,
    language: null,
    blocks,
    frontmatter: t ? { title: t } : {},
    title: t || null,
  };
}

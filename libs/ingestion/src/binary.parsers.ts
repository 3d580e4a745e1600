import { Block, ParsedDocument, ParseError } from './document';
import { parseHtml } from './html.parser';

import { getDocumentProxy } from 'unpdf';

/** PDF text layer, page by page (PDF.js through unpdf). A PDF without text yields no chunks. */
export async function parsePdf(
  data: Buffer,
  meta: { fileSize: number; extension: string | null },
): Promise<ParsedDocument> {
  let pages: string[];
  let totalPages: number;
  try {
    const pdf = await getDocumentProxy(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), { verbosity: 0 });
    totalPages = pdf.numPages;
    pages = [];
    for (let n = 1; n <= totalPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      // Lines from the items' end-of-line flags and baseline changes.
      let text = '';
      let lastY: number | null = null;
      for (const item of content.items as Array<{ str?: string; hasEOL?: boolean; transform?: number[] }>) {
        if (item.str === undefined) continue;
        const y = item.transform?.[5] ?? null;
        if (lastY !== null && y !== null && Math.abs(y - lastY) > 1 && !text.endsWith('\n')) text += '\n';
        text += item.str;
        if (item.hasEOL) text += '\n';
        if (y !== null) lastY = y;
      }
      pages.push(text);
    }
    await pdf.cleanup().catch(() => undefined);
  } catch (err) {
    throw new ParseError(`Could not read the PDF: ${(err as Error).message}`);
  }
  // One block per text line (the chunker packs lines; high_quality re-flows them into paragraphs).
  const blocks: Block[] = [];
  let offset = 0;
  pages.forEach((pageText, i) => {
    for (const line of pageText.split('\n')) {
      const text = line.replace(/\s+/g, ' ').trim();
      if (text) blocks.push({ text, kind: 'paragraph', page: i + 1, startLine: 0, endLine: 0, offset });
      offset += line.length + 1;
    }
  });
  return {
    kind: 'pdf',
    fileType: 'application/pdf',
    fileExtension: meta.extension,
    fileSize: meta.fileSize,
    language: null,
    blocks,
    totalPages,
  };
}

/**
 * DOCX: converted to HTML by mammoth (headings from Word's heading styles), then parsed as HTML.
 * Pictures are left unread (the HTML parser keeps text only), so their bytes are never inflated.
 */
export async function parseDocx(
  data: Buffer,
  meta: { fileSize: number; extension: string | null },
): Promise<ParsedDocument> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mammoth = require('mammoth') as typeof import('mammoth');
  let html: string;
  try {
    html = (
      await mammoth.convertToHtml(
        { buffer: data },
        { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) },
      )
    ).value;
  } catch (err) {
    throw new ParseError(`Could not read the DOCX document: ${(err as Error).message}`);
  }
  return parseHtml(html, { fileSize: meta.fileSize, extension: meta.extension });
}

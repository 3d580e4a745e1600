import { readFileSync } from 'fs';
import { join } from 'path';
import { deflateSync } from 'zlib';
import { docxBomb } from '../../../bench/docx-bomb';
import { ParseError } from './document';
import { checkPdfInflation, checkZipInflation } from './inflation-budget';
import { parseFile } from './parse';

const MiB = 1024 * 1024;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const fixture = (name: string) => readFileSync(join(__dirname, '../../../test/fixtures/ingestion', name));

/** A one-page PDF whose content stream is `inflated` bytes of spaces, deflated (optionally marked as an image). */
function pdfWithStream(inflated: number, subtype = ''): Buffer {
  const data = deflateSync(Buffer.alloc(inflated, 0x20));
  return Buffer.concat([
    Buffer.from(`%PDF-1.4\n4 0 obj\n<< /Length ${data.length} /Filter /FlateDecode ${subtype}>>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
  ]);
}

describe('decompressed-size budget', () => {
  const bomb = docxBomb(16 * MiB);

  it('measures a zip by inflating it, and stops at the budget', async () => {
    await expect(checkZipInflation(bomb, 8 * MiB, 'DOCX document')).rejects.toThrow(
      /more than 8 MiB when decompressed \(LARDER_PARSE_MAX_INFLATED_MB\)/,
    );
    await expect(checkZipInflation(bomb, 17 * MiB, 'DOCX document')).resolves.toBeUndefined();
    await expect(checkZipInflation(fixture('handbook.docx'), 1 * MiB, 'DOCX document')).resolves.toBeUndefined();
  });

  it("counts a PDF's zlib streams but not its images", async () => {
    await expect(checkPdfInflation(pdfWithStream(4 * MiB), 2 * MiB)).rejects.toThrow(ParseError);
    await expect(checkPdfInflation(pdfWithStream(4 * MiB), 5 * MiB)).resolves.toBeUndefined();
    await expect(checkPdfInflation(pdfWithStream(4 * MiB, '/Subtype /Image '), 2 * MiB)).resolves.toBeUndefined();
    await expect(checkPdfInflation(fixture('report.pdf'), 1 * MiB)).resolves.toBeUndefined();
  });

  it('fails a DOCX over the budget with a parse error, in its parse thread', async () => {
    const failed = parseFile(bomb, 'bomb.docx', DOCX, { limits: { maxInflatedBytes: 8 * MiB, maxHeapMb: 256 } });
    await expect(failed).rejects.toThrow(ParseError);
    await expect(failed).rejects.toThrow(/DOCX document expands to more than 8 MiB/);
  });

  it('ends a parse thread that outgrows its heap limit, and the next parse runs', async () => {
    const failed = parseFile(bomb, 'bomb.docx', DOCX, { limits: { maxInflatedBytes: 64 * MiB, maxHeapMb: 64 } });
    await expect(failed).rejects.toThrow(ParseError);
    await expect(failed).rejects.toThrow(/more than the 64 MiB of memory a parse may use \(LARDER_PARSE_MAX_HEAP_MB\)/);
    const doc = await parseFile(fixture('handbook.docx'), 'handbook.docx', DOCX, {
      limits: { maxInflatedBytes: 64 * MiB, maxHeapMb: 64 },
    });
    expect(doc.blocks.length).toBeGreaterThan(0);
  });

  it('ends the parse thread when the signal aborts', async () => {
    const failed = parseFile(bomb, 'bomb.docx', DOCX, {
      limits: { maxInflatedBytes: 64 * MiB, maxHeapMb: 1024 },
      signal: AbortSignal.timeout(50),
    });
    await expect(failed).rejects.toThrow(expect.objectContaining({ name: 'TimeoutError' }));
  });
});

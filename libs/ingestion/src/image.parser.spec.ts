import { Ocr, OcrResult } from '@larder/ai';
import { ImageTooLargeError, ParseError } from './document';
import { parseImage } from './image.parser';

/** Records what reaches the engine; the engine itself is tested in libs/ai (tesseract.ocr.int-spec.ts). */
class RecordingOcr implements Ocr {
  readonly engine = 'recording';
  readonly seen: Buffer[] = [];
  recognize(image: Buffer): Promise<OcrResult> {
    this.seen.push(image);
    return Promise.resolve({ text: 'never read', confidence: 0 });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const png = (width: number, height: number) => {
  const b = Buffer.alloc(33);
  Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
};

describe('image headers are checked before any OCR', () => {
  const meta = { fileSize: 0, extension: 'png', mimeType: 'image/png' };

  it('a truncated header inside a larger buffer fails as unreadable, never reading the bytes beyond it', async () => {
    const pool = Buffer.alloc(4096, 0x7f); // what follows the 16 bytes in memory
    png(1, 1).copy(pool, 100, 0, 16);
    const ocr = new RecordingOcr();
    await expect(parseImage(pool.subarray(100, 116), meta, ocr, { maxPixels: 1e9 })).rejects.toThrow(ParseError);
    expect(ocr.seen).toHaveLength(0);
  });

  it('an image over the pixel limit is refused before decoding; a zero-sized one is unreadable', async () => {
    const ocr = new RecordingOcr();
    await expect(parseImage(png(6000, 5000), meta, ocr, { maxPixels: 25_000_000 })).rejects.toThrow(ImageTooLargeError);
    await expect(parseImage(png(0, 0), meta, ocr, { maxPixels: 25_000_000 })).rejects.toThrow(/no pixels/);
    expect(ocr.seen).toHaveLength(0);
  });
});

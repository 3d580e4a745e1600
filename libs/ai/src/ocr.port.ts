/** Reads the text in an image. Adapter: local/tesseract.ocr.ts (tesseract.js, English data from npm). */
export interface Ocr {
  /** Engine and language data, for logs (`tesseract.js 7 eng`). */
  readonly engine: string;
  /**
   * The text of an encoded image (PNG, JPEG, WebP, GIF, BMP, TIFF: the first frame or page); runs
   * off the event loop. Rejects with `OcrError` when the image cannot be read or the time runs out.
   */
  recognize(image: Buffer, signal?: AbortSignal): Promise<OcrResult>;
  close(): Promise<void>;
}

export interface OcrResult {
  /** Recognised text, lines separated by `\n`, paragraphs by a blank line. */
  text: string;
  /** Mean word confidence, 0–100. */
  confidence: number;
}

export const OCR = Symbol('OCR');

export class OcrError extends Error {
  constructor(
    message: string,
    readonly code: 'image_unreadable' | 'ocr_timeout' | 'ocr_failed',
  ) {
    super(message);
  }
}

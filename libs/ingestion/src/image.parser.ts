import { Ocr, OcrError } from '@larder/ai';
import { ImageTooLargeError, ParsedDocument, ParseError } from './document';
import { paragraphs } from './text.parsers';

/** Image formats Tesseract (Leptonica) reads, by extension → MIME type. */
export const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};
/** image-size's name of a format → its MIME type (the content decides, not the name it was uploaded with). */
const DETECTED: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
};

/**
 * An image: its format and size are read from the header (a picture above `maxPixels` is refused
 * before any decoding), then its text is recognised by OCR off the event loop. The OCR text becomes
 * paragraphs, chunked like plain text into `image_url` chunks; an image without text has no chunks.
 */
export async function parseImage(
  data: Buffer,
  meta: { fileSize: number; extension: string | null; mimeType: string },
  ocr: Ocr,
  limits: { maxPixels: number; signal?: AbortSignal },
): Promise<ParsedDocument> {
  let size: { width: number; height: number; type?: string };
  try {
    // image-size reads through DataViews of the whole underlying ArrayBuffer: a Buffer that is a slice
    // of a larger (pooled) one is copied, so a truncated header fails instead of reading foreign bytes
    const own =
      data.byteOffset === 0 && data.buffer.byteLength === data.byteLength
        ? new Uint8Array(data.buffer)
        : new Uint8Array(data);
    // loaded on the first image, not at start
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    size = (require('image-size') as typeof import('image-size')).imageSize(own);
  } catch (err) {
    throw new ParseError(`Could not read the image (${meta.mimeType}): ${(err as Error).message}`);
  }
  const mimeType = DETECTED[size.type ?? ''];
  if (!mimeType)
    throw new ParseError(
      `Could not read the image (${meta.mimeType}): its content is ${size.type ?? 'of an unknown format'}, not PNG, JPEG, WebP, GIF, BMP or TIFF`,
    );
  if (!size.width || !size.height)
    throw new ParseError(
      `Could not read the image (${meta.mimeType}): it has no pixels (${size.width}×${size.height})`,
    );
  if (size.width * size.height > limits.maxPixels) {
    throw new ImageTooLargeError(
      `The image is ${size.width}×${size.height} pixels, more than the ${limits.maxPixels} this server reads (LARDER_OCR_MAX_PIXELS)`,
    );
  }
  const result = await ocr.recognize(data, limits.signal).catch((err: unknown) => {
    // an image the engine cannot decode is the file's fault; a timeout or an engine failure may pass
    if (err instanceof OcrError && err.code === 'image_unreadable')
      throw new ParseError(`Could not read the image (${mimeType}): ${err.message}`);
    throw err;
  });
  const text = result.text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  return {
    kind: 'image',
    fileType: mimeType,
    fileExtension: meta.extension,
    fileSize: meta.fileSize,
    language: null,
    blocks: text ? paragraphs(text) : [],
    image: { mimeType, width: size.width, height: size.height },
  };
}

import { crc32, deflateSync } from 'zlib';

/**
 * Renders lines of text into a grayscale PNG with a 5×7 pixel font (A–Z, 0–9, space, `.`, `-`,
 * `:`), scaled up and softened, black on white: an image whose text a test knows, made without
 * canvas or ImageMagick. Tesseract reads it reliably at scale 4 with 4 blur passes (letters 28 px
 * high; without the blur it takes B for E and N for M).
 */
const GLYPHS: Record<string, number[]> = {
  A: [14, 17, 17, 31, 17, 17, 17],
  B: [30, 17, 17, 30, 17, 17, 30],
  C: [14, 17, 16, 16, 16, 17, 14],
  D: [30, 17, 17, 17, 17, 17, 30],
  E: [31, 16, 16, 30, 16, 16, 31],
  F: [31, 16, 16, 30, 16, 16, 16],
  G: [14, 17, 16, 23, 17, 17, 15],
  H: [17, 17, 17, 31, 17, 17, 17],
  I: [14, 4, 4, 4, 4, 4, 14],
  J: [7, 2, 2, 2, 2, 18, 12],
  K: [17, 18, 20, 24, 20, 18, 17],
  L: [16, 16, 16, 16, 16, 16, 31],
  M: [17, 27, 21, 21, 17, 17, 17],
  N: [17, 25, 25, 21, 19, 19, 17],
  O: [14, 17, 17, 17, 17, 17, 14],
  P: [30, 17, 17, 30, 16, 16, 16],
  Q: [14, 17, 17, 17, 21, 18, 13],
  R: [30, 17, 17, 30, 20, 18, 17],
  S: [15, 16, 16, 14, 1, 1, 30],
  T: [31, 4, 4, 4, 4, 4, 4],
  U: [17, 17, 17, 17, 17, 17, 14],
  V: [17, 17, 17, 17, 17, 10, 4],
  W: [17, 17, 17, 21, 21, 21, 10],
  X: [17, 17, 10, 4, 10, 17, 17],
  Y: [17, 17, 10, 4, 4, 4, 4],
  Z: [31, 1, 2, 4, 8, 16, 31],
  '0': [14, 17, 19, 21, 25, 17, 14],
  '1': [4, 12, 4, 4, 4, 4, 14],
  '2': [14, 17, 1, 2, 4, 8, 31],
  '3': [31, 2, 4, 2, 1, 17, 14],
  '4': [2, 6, 10, 18, 31, 2, 2],
  '5': [31, 16, 30, 1, 1, 17, 14],
  '6': [6, 8, 16, 30, 17, 17, 14],
  '7': [31, 1, 2, 4, 8, 8, 8],
  '8': [14, 17, 17, 14, 17, 17, 14],
  '9': [14, 17, 17, 15, 1, 2, 12],
  '.': [0, 0, 0, 0, 0, 12, 12],
  '-': [0, 0, 0, 31, 0, 0, 0],
  ':': [0, 12, 12, 0, 12, 12, 0],
  ' ': [0, 0, 0, 0, 0, 0, 0],
};

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** An 8-bit grayscale PNG of `pixels` (0 black … 255 white), `width` × `height`. */
export function grayPng(width: number, height: number, pixels: Uint8Array): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0; // filter: none
    raw.set(pixels.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG showing `lines` (upper-cased), each character a 6×10 cell of `scale`-pixel dots, softened by `blur` 3×3 box-blur passes. */
export function textPng(lines: string[], scale = 4, blur = 4): Buffer {
  const cell = { w: 6, h: 10 };
  const margin = 4;
  const width = (Math.max(...lines.map((l) => l.length)) * cell.w + 2 * margin) * scale;
  const height = (lines.length * cell.h + 2 * margin) * scale;
  const px = new Uint8Array(width * height).fill(255);
  lines.forEach((line, row) =>
    [...line.toUpperCase()].forEach((ch, col) => {
      const glyph = GLYPHS[ch];
      if (!glyph) throw new Error(`textPng has no glyph for ${JSON.stringify(ch)}`);
      for (let r = 0; r < 7; r++) {
        for (let b = 0; b < 5; b++) {
          if (!(glyph[r] & (16 >> b))) continue;
          const x0 = (margin + col * cell.w + b) * scale;
          const y0 = (margin + row * cell.h + r) * scale;
          for (let y = 0; y < scale; y++) px.fill(0, (y0 + y) * width + x0, (y0 + y) * width + x0 + scale);
        }
      }
    }),
  );
  for (let pass = 0; pass < blur; pass++) {
    const src = px.slice();
    for (let y = 1; y < height - 1; y++) {
      for (let x = 1; x < width - 1; x++) {
        let sum = 0;
        for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) sum += src[(y + dy) * width + x + dx];
        px[y * width + x] = Math.round(sum / 9);
      }
    }
  }
  return grayPng(width, height, px);
}

/**
 * The encodings of `POST /v1/embeddings` (`float`, `float16`, `base64`, `int8`, `uint8`, `binary`, `ubinary`): every format is computed from the float
 * vector the model gave (after truncation and normalization), so one request asking for several
 * formats gets one vector in each.
 */
export const ENCODING_FORMATS = ['float', 'float16', 'base64', 'binary', 'ubinary', 'int8', 'uint8'] as const;
export type EncodingFormat = (typeof ENCODING_FORMATS)[number];

export type EncodedEmbedding = number[] | string;

const HALF_MAX = 65504;

/**
 * The IEEE 754 half-precision number nearest to `x` (round half to even; subnormals kept; beyond
 * the largest half, ±65504: JSON has no infinity), as a JavaScript number.
 */
export function roundToHalf(x: number): number {
  if (!Number.isFinite(x)) return x > 0 ? HALF_MAX : x < 0 ? -HALF_MAX : 0;
  if (x === 0) return 0;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  while (2 ** e > a) e--;
  while (2 ** (e + 1) <= a) e++;
  // below 2^-14 the spacing stays that of the subnormals
  const ulp = 2 ** (Math.max(e, -14) - 10);
  const q = a / ulp; // exact: ulp is a power of two
  const floor = Math.floor(q);
  const rest = q - floor;
  const n = rest > 0.5 ? floor + 1 : rest < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
  return Math.sign(x) * Math.min(n * ulp, HALF_MAX);
}

/** The vector's float32 values, little-endian, in base64: what OpenAI's and Mixedbread's clients decode. */
export function float32Base64(v: ArrayLike<number>): string {
  const bytes = new DataView(new ArrayBuffer(v.length * 4));
  for (let i = 0; i < v.length; i++) bytes.setFloat32(i * 4, v[i], true);
  return Buffer.from(bytes.buffer).toString('base64');
}

/**
 * One bit per dimension (1 where the value is positive), packed eight to a byte with the first
 * dimension in the highest bit and the last byte padded with zeros: `ubinary` is the bytes (0–255),
 * `binary` the same bytes minus 128 (−128–127), as sentence-transformers' `quantize_embeddings` does.
 */
export function packBits(v: ArrayLike<number>, signed: boolean): number[] {
  const out = new Array<number>(Math.ceil(v.length / 8)).fill(0);
  for (let i = 0; i < v.length; i++) if (v[i] > 0) out[i >> 3] |= 0x80 >> (i & 7);
  return signed ? out.map((b) => b - 128) : out;
}

/**
 * Scalar quantization to one byte per dimension over the range [−r, r]: r is 1 for normalized
 * vectors (no component of a unit vector lies outside it, so every vector of every request shares
 * one scale and dot products stay comparable), otherwise the vector's own largest absolute value.
 * `int8` = round(127·x/r) in −127…127; `uint8` = round(127.5·(x/r + 1)) in 0…255.
 */
export function quantize(v: ArrayLike<number>, normalized: boolean, unsigned: boolean): number[] {
  let r = 1;
  if (!normalized) {
    r = 0;
    for (let i = 0; i < v.length; i++) r = Math.max(r, Math.abs(v[i]));
  }
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = r ? Math.min(1, Math.max(-1, v[i] / r)) : 0;
    out[i] = unsigned ? Math.round(127.5 * (x + 1)) : Math.round(127 * x);
  }
  return out;
}

export function encode(v: Float32Array, format: EncodingFormat, normalized: boolean): EncodedEmbedding {
  switch (format) {
    case 'float':
      return Array.from(v);
    case 'float16':
      return Array.from(v, roundToHalf);
    case 'base64':
      return float32Base64(v);
    case 'binary':
      return packBits(v, true);
    case 'ubinary':
      return packBits(v, false);
    case 'int8':
      return quantize(v, normalized, false);
    case 'uint8':
      return quantize(v, normalized, true);
  }
}

/** The vector in unit length (a zero vector stays zero). */
export function l2Normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n);
  return n ? v.map((x) => x / n) : v;
}

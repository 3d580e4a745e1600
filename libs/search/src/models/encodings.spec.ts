import { encode, float32Base64, l2Normalize, packBits, quantize, roundToHalf } from './encodings';

describe('embedding encodings', () => {
  it('rounds to the nearest half-precision number (ties to even, subnormals, saturation)', () => {
    expect(roundToHalf(1)).toBe(1);
    expect(roundToHalf(0.1)).toBe(0.0999755859375);
    expect(roundToHalf(-0.333333)).toBe(-0.333251953125);
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: to even (1)
    expect(roundToHalf(1 + 2 ** -11)).toBe(1);
    expect(roundToHalf(1 + 3 * 2 ** -11)).toBe(1 + 2 * 2 ** -10);
    expect(roundToHalf(2 ** -24)).toBe(2 ** -24);
    expect(roundToHalf(2 ** -26)).toBe(0);
    expect(roundToHalf(1e6)).toBe(65504);
    expect(roundToHalf(0)).toBe(0);
  });

  it('writes base64 of little-endian float32, as OpenAI clients decode it', () => {
    const v = new Float32Array([0.5, -1.25, 3.1415927]);
    const b = Buffer.from(float32Base64(v), 'base64');
    expect(b).toHaveLength(12);
    expect(b.readFloatLE(0)).toBe(0.5);
    expect(b.readFloatLE(4)).toBe(-1.25);
    expect(b.readFloatLE(8)).toBe(Math.fround(3.1415927));
  });

  it('packs sign bits eight to a byte, first dimension in the high bit, as sentence-transformers does', () => {
    const v = [0.1, -0.2, 0.3, 0, -0.1, 0.2, 0.2, 0.9, 0.5, -1];
    // 1 0 1 0 0 1 1 1 | 1 0 (padded) → 0b10100111 = 167, 0b10000000 = 128
    expect(packBits(v, false)).toEqual([167, 128]);
    expect(packBits(v, true)).toEqual([39, 0]);
  });

  it("quantizes over [-1, 1] for unit vectors and over the vector's own range otherwise", () => {
    expect(quantize([1, -1, 0.5, 0], true, false)).toEqual([127, -127, 64, 0]);
    expect(quantize([1, -1, 0.5, 0], true, true)).toEqual([255, 0, 191, 128]);
    expect(quantize([4, -2, 1], false, false)).toEqual([127, -63, 32]);
    expect(quantize([0, 0], false, true)).toEqual([128, 128]);
  });

  it('encodes one vector in each format from the same floats', () => {
    const v = l2Normalize(new Float32Array([3, -4]));
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(-0.8)]);
    expect(encode(v, 'float', true)).toEqual([Math.fround(0.6), Math.fround(-0.8)]);
    expect(encode(v, 'int8', true)).toEqual([76, -102]);
    expect(encode(v, 'ubinary', true)).toEqual([128]);
    expect(typeof encode(v, 'base64', true)).toBe('string');
  });
});

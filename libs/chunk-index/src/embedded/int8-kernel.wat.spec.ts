import { readFileSync } from 'fs';
import { join } from 'path';
import { moduleBytesFor } from './int8-kernel';

/**
 * int8-kernel.wat is the readable listing of the bytes int8-kernel.ts assembles: the module's bytes are
 * decoded here (types, import, export, code) and compared with the listing, instruction by instruction.
 */

const TYPES: Record<number, string> = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128' };

/** A cursor over the module's bytes. */
class Bytes {
  pos = 0;
  constructor(readonly b: Uint8Array) {}
  byte(): number {
    if (this.pos >= this.b.length) throw new Error('unexpected end of the module');
    return this.b[this.pos++];
  }
  uleb(): number {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const x = this.byte();
      v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return v;
    }
  }
  sleb(): number {
    let v = 0;
    let shift = 0;
    let x: number;
    do {
      x = this.byte();
      v += (x & 0x7f) * 2 ** shift;
      shift += 7;
    } while (x >= 0x80);
    return x & 0x40 ? v - 2 ** shift : v;
  }
  name(): string {
    const n = this.uleb();
    const s = Buffer.from(this.b.subarray(this.pos, this.pos + n)).toString('utf8');
    this.pos += n;
    return s;
  }
  type(): string {
    const t = TYPES[this.byte()];
    if (!t) throw new Error(`unknown value type at ${this.pos - 1}`);
    return t;
  }
}

/** A memory argument as the text format writes it: offset where not 0, alignment where not the natural one. */
function memarg(r: Bytes, natural: number): string {
  const align = r.uleb();
  const offset = r.uleb();
  return [offset ? `offset=${offset}` : '', align !== natural ? `align=${2 ** align}` : ''].filter(Boolean).join(' ');
}

/** One instruction at the cursor, as text (immediates as indices and numbers); throws on an opcode it does not know. */
function instruction(r: Bytes): string {
  const op = r.byte();
  const plain: Record<number, string> = { 0x0b: 'end', 0x6a: 'i32.add', 0x74: 'i32.shl', 0x4f: 'i32.ge_u' };
  if (plain[op]) return plain[op];
  const withIndex: Record<number, string> = { 0x0c: 'br', 0x0d: 'br_if', 0x20: 'local.get', 0x21: 'local.set' };
  if (withIndex[op]) return `${withIndex[op]} ${r.uleb()}`;
  if (op === 0x02 || op === 0x03) {
    if (r.byte() !== 0x40) throw new Error('only blocks without results are listed');
    return op === 0x02 ? 'block' : 'loop';
  }
  if (op === 0x41) return `i32.const ${r.sleb()}`;
  if (op === 0x36) return ['i32.store', memarg(r, 2)].filter(Boolean).join(' ');
  if (op === 0xfd) {
    const sub = r.uleb();
    const simd: Record<number, string> = {
      0x87: 'i16x8.extend_low_i8x16_s',
      0x88: 'i16x8.extend_high_i8x16_s',
      0xae: 'i32x4.add',
      0xba: 'i32x4.dot_i16x8_s',
    };
    if (simd[sub]) return simd[sub];
    if (sub === 0x00) return ['v128.load', memarg(r, 4)].filter(Boolean).join(' ');
    if (sub === 0x1b) return `i32x4.extract_lane ${r.byte()}`;
    if (sub === 0x0c) {
      const lanes = Array.from({ length: 4 }, () => r.byte() | (r.byte() << 8) | (r.byte() << 16) | (r.byte() << 24));
      return `v128.const i32x4 ${lanes.join(' ')}`;
    }
    throw new Error(`unknown SIMD opcode 0x${sub.toString(16)}`);
  }
  throw new Error(`unknown opcode 0x${op.toString(16)} at ${r.pos - 1}`);
}

interface Kernel {
  params: string[];
  results: string[];
  memory: string;
  exports: string[];
  locals: string[];
  code: string[];
}

/** The module's one function as decoded from its bytes (its closing `end` left out, as the text format leaves it implicit). */
function decode(bytes: Uint8Array): Kernel {
  const r = new Bytes(bytes);
  expect(Array.from(bytes.subarray(0, 8))).toEqual([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  r.pos = 8;
  const k: Kernel = { params: [], results: [], memory: '', exports: [], locals: [], code: [] };
  while (r.pos < bytes.length) {
    const id = r.byte();
    const end = r.uleb() + r.pos;
    if (id === 1) {
      expect([r.uleb(), r.byte()]).toEqual([1, 0x60]);
      k.params = Array.from({ length: r.uleb() }, () => r.type());
      k.results = Array.from({ length: r.uleb() }, () => r.type());
    } else if (id === 2) {
      expect(r.uleb()).toBe(1);
      const [mod, name, kind, flags] = [r.name(), r.name(), r.byte(), r.byte()];
      expect(kind).toBe(0x02);
      const min = r.uleb();
      const max = flags & 1 ? ` ${r.uleb()}` : '';
      k.memory = `(import "${mod}" "${name}" (memory ${min}${max}${flags & 2 ? ' shared' : ''}))`;
    } else if (id === 7) {
      k.exports = Array.from({ length: r.uleb() }, () => {
        const name = r.name();
        expect([r.byte(), r.uleb()]).toEqual([0x00, 0]);
        return name;
      });
    } else if (id === 10) {
      expect(r.uleb()).toBe(1);
      const bodyEnd = r.uleb() + r.pos;
      for (let groups = r.uleb(); groups > 0; groups--) {
        const n = r.uleb();
        const t = r.type();
        for (let i = 0; i < n; i++) k.locals.push(t);
      }
      while (r.pos < bodyEnd) k.code.push(instruction(r));
      expect(k.code.pop()).toBe('end');
    }
    r.pos = end;
  }
  return k;
}

/** The listing: its declarations, and its instructions with names replaced by indices and comments dropped. */
function listing(): Kernel {
  const text = readFileSync(join(__dirname, 'int8-kernel.wat'), 'utf8');
  const lines = text
    .split('\n')
    .map((l) => l.replace(/;;.*$/, '').trim())
    .filter(Boolean);
  const decls = (kind: string, line: string) =>
    [...line.matchAll(new RegExp(`\\(${kind} (\\$\\w+) (\\w+)\\)`, 'g'))].map((m) => [m[1], m[2]] as const);
  const func = lines.find((l) => l.startsWith('(func'))!;
  const localLine = lines.find((l) => l.startsWith('(local'))!;
  const params = decls('param', func);
  const locals = decls('local', localLine);
  const index = new Map([...params, ...locals].map(([name], i) => [name, i]));
  const code = lines
    .slice(lines.indexOf(localLine) + 1)
    .filter((l) => !/^\)+$/.test(l))
    .map((l) =>
      l.replace(/\$\w+/g, (name) => {
        if (!index.has(name)) throw new Error(`${name} is not declared in the listing`);
        return String(index.get(name));
      }),
    );
  return {
    params: params.map(([, t]) => t),
    results: [...func.matchAll(/\(result (\w+)\)/g)].map((m) => m[1]),
    memory: lines.find((l) => l.startsWith('(import'))!,
    exports: [...func.matchAll(/\(export "(\w+)"\)/g)].map((m) => m[1]),
    locals: locals.map(([, t]) => t),
    code,
  };
}

describe('int8 kernel listing (int8-kernel.wat)', () => {
  it('is the module the kernel assembles: signature, memory import, export, locals and every instruction in order', () => {
    const want = listing();
    expect(want.code.length).toBeGreaterThan(50);
    expect(decode(moduleBytesFor(false))).toEqual(want);
  });

  it('differs from the shared module only in its memory import', () => {
    const shared = decode(moduleBytesFor(true));
    expect(shared.memory).toBe('(import "env" "memory" (memory 1 65536 shared))');
    expect({ ...shared, memory: '' }).toEqual({ ...listing(), memory: '' });
  });

  it('tells a changed instruction from the listing', () => {
    const bytes = moduleBytesFor(false);
    // the second query load's offset (v128.load offset=16): the only 16-byte offset of a v128.load
    const at = bytes.findIndex(
      (b, i) => b === 0xfd && bytes[i + 1] === 0x00 && bytes[i + 2] === 0x00 && bytes[i + 3] === 16,
    );
    expect(at).toBeGreaterThan(0);
    const changed = Uint8Array.from(bytes);
    changed[at + 3] = 48;
    expect(decode(changed).code).not.toEqual(listing().code);
  });
});

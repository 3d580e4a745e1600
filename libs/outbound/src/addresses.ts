import { isIP } from 'net';

/**
 * Classifies an IP address: `null` when it is a public unicast address Larder may connect to on a
 * tenant's behalf, otherwise the name of the special-purpose range it falls in (loopback, private,
 * link-local — which holds the cloud metadata services —, and the rest of the IANA special registries).
 * IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, IPv4-compatible) are judged by that
 * IPv4 address, so `::ffff:127.0.0.1` is loopback.
 */
export function specialRange(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return v4Range(v4Bytes(address));
  if (family === 6) return v6Range(v6Words(address));
  return 'not an IP address';
}

const V4_RANGES: [number, number, number, number, number, string][] = [
  // a, b, c, d, prefix length, name
  [0, 0, 0, 0, 8, 'unspecified ("this network")'],
  [10, 0, 0, 0, 8, 'private'],
  [100, 64, 0, 0, 10, 'shared (carrier-grade NAT)'],
  [127, 0, 0, 0, 8, 'loopback'],
  [169, 254, 0, 0, 16, 'link-local (cloud metadata)'],
  [172, 16, 0, 0, 12, 'private'],
  [192, 0, 0, 0, 24, 'IETF protocol assignments'],
  [192, 0, 2, 0, 24, 'documentation'],
  [192, 88, 99, 0, 24, '6to4 relay anycast'],
  [192, 168, 0, 0, 16, 'private'],
  [198, 18, 0, 0, 15, 'benchmarking'],
  [198, 51, 100, 0, 24, 'documentation'],
  [203, 0, 113, 0, 24, 'documentation'],
  [224, 0, 0, 0, 4, 'multicast'],
  [240, 0, 0, 0, 4, 'reserved (and broadcast)'],
];

function v4Bytes(address: string): number[] {
  return address.split('.').map((p) => Number(p));
}

function v4Range(bytes: number[]): string | null {
  const value = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
  for (const [a, b, c, d, prefix, name] of V4_RANGES) {
    const base = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if ((value & mask) >>> 0 === base) return name;
  }
  return null;
}

/** The eight 16-bit words of an IPv6 address (with `::` expanded and a trailing dotted IPv4 part converted). */
function v6Words(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const b = v4Bytes(text.slice(lastColon + 1));
    tail = [(b[0] << 8) | b[1], (b[2] << 8) | b[3]];
    text = text.slice(0, lastColon + 1) + '0';
    // keep the word count right: the dotted part stands for two words, the placeholder for one
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, null];
  const parse = (s: string) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const left = parse(head);
  let right = rest === null ? [] : parse(rest);
  if (tail.length) {
    if (rest === null) left.pop();
    else right = right.slice(0, -1);
  }
  const fill = 8 - left.length - right.length - tail.length;
  return [...left, ...(rest === null ? [] : new Array<number>(Math.max(0, fill)).fill(0)), ...right, ...tail];
}

function embeddedV4(w: number[]): number[] {
  return [w[6] >> 8, w[6] & 0xff, w[7] >> 8, w[7] & 0xff];
}

function v6Range(w: number[]): string | null {
  const zeroUntil = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeroUntil(8)) return 'unspecified';
  if (zeroUntil(7) && w[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64)
  if (zeroUntil(5) && w[5] === 0xffff) return v4Range(embeddedV4(w)) ?? null;
  if (zeroUntil(6)) return v4Range(embeddedV4(w)) ?? 'IPv4-compatible';
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return v4Range(embeddedV4(w));
  if (w[0] === 0x2002) return v4Range([w[1] >> 8, w[1] & 0xff, w[2] >> 8, w[2] & 0xff]); // 6to4
  if ((w[0] & 0xfe00) === 0xfc00) return 'unique local (private)';
  if ((w[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((w[0] & 0xffc0) === 0xfec0) return 'site-local (private)';
  if ((w[0] & 0xff00) === 0xff00) return 'multicast';
  if (w[0] === 0x2001 && w[1] === 0x0db8) return 'documentation';
  if (w[0] === 0x0100 && w.slice(1, 4).every((x) => x === 0)) return 'discard-only';
  if (w[0] === 0x2001 && w[1] < 0x0200) return 'IETF protocol assignments';
  return null;
}

/** Whether `address` (IPv4 or IPv6) lies in `cidr` (`10.0.0.0/8`, `fd00::/8`, or a single address). */
export function inCidr(address: string, cidr: string): boolean {
  const [base, lengthText] = cidr.split('/');
  const family = isIP(address);
  if (family === 0 || family !== isIP(base)) {
    // an IPv4 rule also matches the IPv4-mapped form of an address
    if (family === 6 && isIP(base) === 4) {
      const w = v6Words(address);
      if (w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff) return inCidr(embeddedV4(w).join('.'), cidr);
    }
    return false;
  }
  const bits = family === 4 ? v4Bytes(address) : v6Words(address).flatMap((x) => [x >> 8, x & 0xff]);
  const baseBits = family === 4 ? v4Bytes(base) : v6Words(base).flatMap((x) => [x >> 8, x & 0xff]);
  const length = lengthText === undefined ? bits.length * 8 : Number(lengthText);
  for (let i = 0; i < bits.length; i++) {
    const take = Math.max(0, Math.min(8, length - i * 8));
    if (take === 0) break;
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bits[i] & mask) !== (baseBits[i] & mask)) return false;
  }
  return true;
}

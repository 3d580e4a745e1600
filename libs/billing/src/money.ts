/**
 * Exact decimal money: an integer number of 10⁻¹² units (BigInt). Prices and quantities are parsed
 * from decimal strings, products are rounded half-up to 12 places once, and sums are exact; the
 * contract's decimal strings come out with trailing zeros trimmed.
 */
export class Money {
  static readonly SCALE = 12n;
  private static readonly ONE = 10n ** Money.SCALE;
  private constructor(readonly units: bigint) {}

  static zero(): Money {
    return new Money(0n);
  }

  /** A decimal string ("0.5", "12", "-1.25") at up to 12 places. */
  static parse(s: string | number): Money {
    const str = typeof s === 'number' ? s.toString() : s.trim();
    const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(str);
    if (!m) throw new Error(`not a decimal: ${str}`);
    const frac = (m[3] ?? '').padEnd(Number(Money.SCALE), '0');
    if (frac.length > Number(Money.SCALE) && /[1-9]/.test(frac.slice(Number(Money.SCALE))))
      throw new Error(`more than ${Money.SCALE} decimal places: ${str}`);
    const units = BigInt(m[2]) * Money.ONE + BigInt(frac.slice(0, Number(Money.SCALE)) || '0');
    return new Money(m[1] ? -units : units);
  }

  add(o: Money): Money {
    return new Money(this.units + o.units);
  }
  sub(o: Money): Money {
    return new Money(this.units - o.units);
  }
  min(o: Money): Money {
    return this.units <= o.units ? this : o;
  }
  max(o: Money): Money {
    return this.units >= o.units ? this : o;
  }
  isZero(): boolean {
    return this.units === 0n;
  }

  /** price × (numerator / denominator), rounded half-up to 12 places. */
  times(numerator: bigint, denominator = 1n): Money {
    const n = this.units * numerator;
    const q = n / denominator;
    const r = n % denominator;
    const up = (r < 0n ? -r : r) * 2n >= (denominator < 0n ? -denominator : denominator);
    return new Money(up ? q + (n < 0n ? -1n : 1n) : q);
  }

  toString(): string {
    const neg = this.units < 0n;
    const a = neg ? -this.units : this.units;
    const int = a / Money.ONE;
    const frac = (a % Money.ONE).toString().padStart(Number(Money.SCALE), '0').replace(/0+$/, '');
    return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
  }

  toNumber(): number {
    return Number(this.toString());
  }
}

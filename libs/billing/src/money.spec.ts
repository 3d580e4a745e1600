import { Money } from './money';
import { priceTable } from './prices';

describe('Money (exact decimal)', () => {
  it('parses, adds and prints without binary rounding', () => {
    expect(Money.parse('0.1').add(Money.parse('0.2')).toString()).toBe('0.3');
    expect(Money.parse('10').sub(Money.parse('0.000000000001')).toString()).toBe('9.999999999999');
    expect(Money.parse('-1.50').toString()).toBe('-1.5');
    expect(Money.zero().toString()).toBe('0');
  });
  it('multiplies by a fraction, rounding half up at 12 places once', () => {
    expect(Money.parse('0.02').times(1_500_000n, 1_000_000n).toString()).toBe('0.03');
    expect(Money.parse('1').times(1n, 3n).toString()).toBe('0.333333333333');
    expect(Money.parse('1').times(2n, 3n).toString()).toBe('0.666666666667');
    expect(Money.parse('0.000000000001').times(1n, 2n).toString()).toBe('0.000000000001');
  });
  it('refuses what is not a decimal', () => {
    expect(() => Money.parse('1e3')).toThrow();
    expect(() => Money.parse('abc')).toThrow();
    expect(() => Money.parse('0.0000000000001')).toThrow(/12 decimal places/);
  });
  it('price tables take any subset of metrics and refuse unknown ones', () => {
    expect(priceTable('{"searches":"1.25"}').searches.toString()).toBe('1.25');
    expect(priceTable(null).storage.toString()).toBe('0.1');
    expect(() => priceTable('{"bogus":"1"}')).toThrow(/unknown metric/);
  });
});

import { describe, expect, it } from 'vitest';
import { formatMoney, groupThousands } from './money';

describe('formatMoney', () => {
  it.each([
    ['10000.00', '10,000.00'],
    ['0.00', '0.00'],
    ['999.99', '999.99'],
    ['1000', '1,000.00'],
    ['1234567.5', '1,234,567.50'],
    ['-2500.10', '-2,500.10'],
    ['00012.30', '12.30'],
    ['12345678901234567890.12', '12,345,678,901,234,567,890.12'],
  ])('formats %s as %s', (input, expected) => {
    expect(formatMoney(input)).toBe(expected);
  });

  it('rounds extra digits half away from zero without floats', () => {
    expect(formatMoney('0.125')).toBe('0.13');
    expect(formatMoney('0.124')).toBe('0.12');
    expect(formatMoney('999999.995')).toBe('1,000,000.00');
    expect(formatMoney('-1.005')).toBe('-1.01');
    // A float would print 0.30000000000000004 somewhere along the way; strings cannot.
    expect(formatMoney('0.30000000000000004')).toBe('0.30');
  });

  it('drops the sign of a zero that rounding produced', () => {
    expect(formatMoney('-0.001')).toBe('0.00');
  });

  it('honours other decimal counts', () => {
    expect(formatMoney('1234.5678', 3)).toBe('1,234.568');
    expect(formatMoney('1234.5', 0)).toBe('1,235');
  });

  it('leaves values that are not plain decimals alone', () => {
    expect(formatMoney('abc')).toBe('abc');
    expect(formatMoney('1e5')).toBe('1e5');
  });

  it('groups integers in threes', () => {
    expect(groupThousands('1')).toBe('1');
    expect(groupThousands('1000')).toBe('1,000');
    expect(groupThousands('100000')).toBe('100,000');
  });
});

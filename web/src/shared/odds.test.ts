import { describe, expect, it } from 'vitest';
import vectors from '../../../domain/testdata/odds_vectors.json';
import { STANDARD_LADDER, formatOdds, handicapLines, isOddsFormat, signedLine, type OddsFormat } from './odds';

interface Vector {
  price: string;
  format: string;
  ladder: boolean;
  expected: string;
}

describe('odds vectors shared with the Rust side', () => {
  it('has vectors for every format', () => {
    const formats = new Set((vectors as Vector[]).map((v) => v.format));
    expect([...formats].sort()).toEqual(['american', 'decimal', 'fractional', 'hongkong', 'indo', 'malay']);
  });

  it.each((vectors as Vector[]).map((v) => [`${v.price} ${v.format}${v.ladder ? ' ladder' : ''}`, v] as const))(
    '%s',
    (_name, v) => {
      expect(isOddsFormat(v.format)).toBe(true);
      expect(formatOdds(v.price, v.format as OddsFormat, v.ladder ? STANDARD_LADDER : null)).toBe(v.expected);
    },
  );
});

describe('odds formatting', () => {
  it('reads numbers as well as strings and refuses garbage', () => {
    expect(formatOdds(1.5, 'decimal')).toBe('1.50');
    expect(formatOdds('abc', 'decimal')).toBe('-');
  });

  it('keeps the 101-step standard ladder', () => {
    expect(STANDARD_LADDER).toHaveLength(101);
    expect(STANDARD_LADDER[0]).toEqual([100, 1]);
    expect(STANDARD_LADDER.at(-1)).toEqual([1, 100]);
  });
});

describe('quarter lines', () => {
  it('show both half lines nearer zero first', () => {
    expect(handicapLines('0.25')).toBe('0 / 0.5');
    expect(handicapLines('-0.75')).toBe('-0.5 / -1');
    expect(handicapLines('1.25')).toBe('1 / 1.5');
    expect(handicapLines('-0.25')).toBe('0 / -0.5');
    expect(handicapLines('2.750')).toBe('2.5 / 3');
  });

  it('show other lines plainly', () => {
    expect(handicapLines('0')).toBe('0');
    expect(handicapLines('-0.00')).toBe('0');
    expect(handicapLines('1.50')).toBe('1.5');
    expect(handicapLines('-2')).toBe('-2');
    expect(handicapLines('0.1')).toBe('0.1');
  });

  it('sign the positive halves for a side', () => {
    expect(signedLine('0.75')).toBe('+0.5 / +1');
    expect(signedLine('0.25')).toBe('0 / +0.5');
    expect(signedLine('-1.5')).toBe('-1.5');
    expect(signedLine('2')).toBe('+2');
  });
});

import { describe, expect, it } from 'vitest';
import vectors from '../../../../domain/testdata/betslip_vectors.json';
import { betterOdds, dec, lineStake, money, slipFigures, type SlipType } from './arith';

interface VectorSlip {
  name: string;
  type: number;
  amount: string;
  each_way: boolean;
  sys_bet: number | null;
  is_offer: boolean;
  legs: Array<{ price: string; banker: boolean; ew_coeff: string | null }>;
  expect: { lines: number; unit_stake: string; stake: string; refused?: string; odds?: string | null; possible_win?: string | null };
}

const slips = vectors.slips as VectorSlip[];

describe('betslip vectors shared with the Rust side', () => {
  it('has the cases of every bet type, each-way, better odds and the odds limit', () => {
    expect(new Set(slips.map((s) => s.type))).toEqual(new Set([1, 2, 3, 4]));
    expect(slips.some((s) => s.each_way)).toBe(true);
    expect(slips.some((s) => s.is_offer)).toBe(true);
    expect(slips.some((s) => s.expect.refused === 'odds_limit')).toBe(true);
  });

  it.each(vectors.better_odds.map((v) => [v.price, v.offered] as const))('better odds of %s is %s', (price, offered) => {
    const got = betterOdds(price);
    // below 1.06 nothing is offered: the price stays as it is
    expect(got ?? price).toBe(offered);
  });

  it.each(slips.map((s) => [s.name, s] as const))('%s', (_name, s) => {
    const bankers = s.legs.filter((l) => l.banker).length;
    const figures = slipFigures({
      type: s.type as SlipType,
      amount: s.amount,
      eachWay: s.each_way,
      sysK: s.sys_bet === null ? 0 : s.sys_bet - bankers,
      legs: s.legs.map((l) => ({ price: l.price, banker: l.banker, ewCoeff: l.ew_coeff, sp: l.price === '-1' })),
      offer: s.is_offer,
    });
    expect(figures.lines).toBe(s.expect.lines);
    expect(figures.unitStake).toBe(s.expect.unit_stake);
    expect(figures.stake).toBe(s.expect.stake);
    expect(figures.oddsLimitExceeded).toBe(s.expect.refused === 'odds_limit');
    if (s.expect.refused) return;
    expect(figures.odds).toBe(s.expect.odds ?? null);
    expect(figures.possibleWin).toBe(s.expect.possible_win ?? null);
  });
});

describe('exact decimals', () => {
  it('1.5 x 89.05 shows 133.58 (the float product is 133.57499...)', () => {
    expect((1.5 * 89.05).toFixed(2)).toBe('133.57');
    expect(money(dec('89.05')!.times('1.5'))).toBe('133.58');
  });

  it('reads only decimals', () => {
    expect(dec('1e3')).toBeNull();
    expect(dec('abc')).toBeNull();
    expect(dec('')).toBeNull();
    expect(dec(Number.NaN)).toBeNull();
    expect(dec('.5')!.toString()).toBe('0.5');
  });

  it('splits a total over its lines rounding down', () => {
    expect(lineStake('10', 6)).toBe('1.66');
    expect(lineStake('', 6)).toBe('');
  });
});

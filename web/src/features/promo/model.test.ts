import { describe, expect, it } from 'vitest';
import { drawMessage, matchPromo, recordAction, signinDays, taskButton } from './model';

describe('promotion routes (spec 001 section 2.1)', () => {
  it('maps the list, the named campaign pages and /promo/{news}', () => {
    expect(matchPromo('preferential', undefined, 0)).toEqual({ name: 'list' });
    expect(matchPromo('preferentialin', undefined, 0)).toEqual({ name: 'list' });
    expect(matchPromo('actione', undefined, 0)).toEqual({ name: 'campaign', slug: 'actione' });
    expect(matchPromo('promo', 'newDeposit2025', 0)).toEqual({ name: 'campaign', slug: 'newDeposit2025' });
    expect(matchPromo('promo', undefined, 0)).toBeNull();
    expect(matchPromo('promo', 'x', 1)).toBeNull();
    expect(matchPromo('novicetask', undefined, 0)).toEqual({ name: 'novicetask' });
    expect(matchPromo('recommendedgift', undefined, 0)).toEqual({ name: 'recommendedgift' });
    expect(matchPromo('unknown', undefined, 0)).toBeNull();
  });
});

describe('task states (spec 001 section 4)', () => {
  it('offers the receive button only when claimable', () => {
    expect(taskButton(0)).toEqual({ key: 'promo.undone', enabled: false });
    expect(taskButton(1)).toEqual({ key: 'promo.receive', enabled: true });
    expect(taskButton(2).enabled).toBe(false);
    expect(taskButton(7).key).toBe('promo.received');
  });
});

describe('prize draw and referrals', () => {
  const t = (key: string) => `[${key}]`;
  it('shows the -21404 text and the server msg otherwise', () => {
    expect(drawMessage(-21404, 'x', t)).toBe('[promo.draw_gone]');
    expect(drawMessage(-62001, 'drawn already', t)).toBe('drawn already');
  });
  it('labels record actions: 1 first deposit, otherwise promotion', () => {
    expect(recordAction(1)).toBe('promo.action_deposit');
    expect(recordAction(2)).toBe('promo.action_promotion');
  });
  it('marks the days of a streak in the sign-in table', () => {
    const days = signinDays(['1', '2', '3'], 2, true);
    expect(days.map((d) => d.done)).toEqual([true, true, false]);
    expect(signinDays(['1', '2', '3'], 0, false)[0]!.today).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../app/router';
import { barWidth, growthSeries, type LedgerRow } from './model';

const row = (id: string, time_ms: number, seq: number, exp_after: string): LedgerRow => ({
  id, time: Math.floor(time_ms / 1000), time_ms, seq, kind: 'pg', money: '0', bets: '0', exp: '0', score: '0',
  money_after: '0', exp_after, level: 1,
});

describe('hall of honour', () => {
  it('routes /hallofhonor and its three sub-pages, nothing else', () => {
    expect(matchRoute('/hallofhonor', [])).toEqual({ page: 'honor', sub: 'main' });
    expect(matchRoute('/hallofhonor/growup', [])).toEqual({ page: 'honor', sub: 'growup' });
    expect(matchRoute('/hallofhonor/mbdetails', [])).toEqual({ page: 'honor', sub: 'mbdetails' });
    expect(matchRoute('/hallofhonor/newhonor', [])).toEqual({ page: 'honor', sub: 'newhonor' });
    expect(matchRoute('/hallofhonor/other', [])).toEqual({ page: 'notFound' });
    expect(matchRoute('/hallofhonor/growup/1', [])).toEqual({ page: 'notFound' });
  });

  it('caps progress bars at 100 percent', () => {
    expect(barWidth('60.00')).toBe('60%');
    expect(barWidth('250')).toBe('100%');
    expect(barWidth('-3')).toBe('0%');
    expect(barWidth('x')).toBe('0%');
  });

  it('draws experience in the order it was counted, rows of one millisecond by position', () => {
    const rows = [row('b', 2000, 9, '3000'), row('c', 1000, 5, '2000'), row('a', 1000, 4, '0')];
    expect(growthSeries(rows)).toEqual({ x: [1, 1, 2], y: [0, 2000, 3000] });
  });
});

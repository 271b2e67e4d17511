import { configureStore } from '@reduxjs/toolkit';
import { fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api/transport';
import { matchRoute, backHref } from '../../app/router';
import { rootReducer } from '../../app/store';
import { PAIRS, mockApi, ok } from '../../test/apiMock';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { sessionActions } from '../session/sessionSlice';
import { BetDataPage } from './BetDataPage';
import { outcomeShares, profitClass, signed, statsParams, type BetStats } from './betdata';
import { presetRange } from './model';

const eng = readSkin('languages/eng.json');
const AUTH = { auth_token: 'tok', user_id: '7', username: 'p', expires: Date.now() + 600_000, never_expires: false };
const totals = (count: number, stake: string, payout: string, profit: string) => ({ count, stake, settled_stake: stake, payout, profit });
const STATS: BetStats = {
  currency: 'CNY', from_date: 1, to_date: 2, partial: false,
  total: totals(5, '250.00', '262.50', '12.50'), open: 1, won: 2, lost: 1, returned: 0, cashed_out: 1, declined: 0,
  win_rate: '66.67', average_odds: '1.95', biggest_win: '190.00',
  by_type: [{ type: 1, ...totals(4, '200.00', '262.50', '62.50') }, { type: 2, ...totals(1, '50.00', '0.00', '-50.00') }],
  by_sport: [{ sport: 'Soccer', ...totals(4, '200.00', '262.50', '62.50') }, { sport: '', ...totals(1, '50.00', '0.00', '-50.00') }],
};

function setup(loggedIn: boolean, stats: BetStats = STATS) {
  const api = mockApi({ 'report/betanalytics': () => ok(stats) });
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  if (loggedIn) store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  render(<Provider store={store}><BetDataPage /></Provider>);
  return { api, store };
}

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => vi.unstubAllGlobals());

describe('betting statistics rules', () => {
  it('is /betdata, back to the user centre (spec 001 section 2.3)', () => {
    expect(matchRoute('/betdata', [])).toEqual({ page: 'betdata' });
    expect(backHref('/betdata')).toBe('/usercenter');
  });

  it("asks for the preset's days with an inclusive end", () => {
    const now = new Date(Date.UTC(2026, 5, 15, 8));
    const { from, to } = presetRange('week', now, 'eng');
    expect(statsParams('week', now, 'eng')).toEqual({ from_date: from, to_date: to - 1 });
    expect(to - from).toBe(7 * 86_400);
  });

  it('shares the bar among the bets that were not declined', () => {
    expect(outcomeShares({ won: 2, lost: 1, returned: 0, cashed_out: 1, open: 0 }).map((s) => s.percent)).toEqual([50, 25, 0, 25, 0]);
    expect(outcomeShares({ won: 0, lost: 0, returned: 0, cashed_out: 0, open: 0 }).every((s) => s.percent === 0)).toBe(true);
  });

  it('signs and colours a profit by its sign', () => {
    expect([profitClass('12.50'), profitClass('-0.01'), profitClass('0.00')]).toEqual(['is-up', 'is-down', '']);
    expect([signed('12.50'), signed('-3.00'), signed('0.00')]).toEqual(['+12.50', '-3.00', '0.00']);
  });
});

describe('/betdata', () => {
  it('shows the figures, the outcomes and the splits of the period', async () => {
    const { api } = setup(true);
    expect((await screen.findByTestId('betdata-profit', {}, { timeout: 4000 })).textContent).toBe('+12.50');
    expect(screen.getByTestId('betdata-profit').className).toBe('is-up');
    expect(screen.getByTestId('betdata-count').textContent).toBe('5');
    expect(screen.getByTestId('betdata-stake').textContent).toBe('250.00');
    expect(screen.getByTestId('betdata-win-rate').textContent).toBe('66.67%');
    expect(screen.getByTestId('betdata-outcomes').textContent).toContain(`${eng['betdata.outcome.won']} 2`);
    const page = screen.getByTestId('betdata-page').textContent!;
    expect(page).toContain(eng['betslip.type.single']);
    expect(page).toContain(eng['betdata.mixed']);
    expect(page).toContain('-50.00');
    const params = api.calls[0]!.params as { from_date: number; to_date: number };
    expect(params.to_date - params.from_date).toBe(7 * 86_400 - 1); // the week preset
    fireEvent.click(screen.getByTestId('range-today'));
    await vi.waitFor(() => expect(api.calls).toHaveLength(2), { timeout: 4000 });
    const today = api.calls[1]!.params as { from_date: number; to_date: number };
    expect(today.to_date - today.from_date).toBe(86_400 - 1);
  });

  it('says so when the period has no bets', async () => {
    setup(true, { ...STATS, total: totals(0, '0.00', '0.00', '0.00'), open: 0, won: 0, lost: 0, cashed_out: 0, by_type: [], by_sport: [] });
    expect(await screen.findByText(eng['betdata.empty']!, {}, { timeout: 4000 })).toBeTruthy();
  });

  it('asks a visitor to log in and calls nothing', () => {
    const { api } = setup(false);
    expect(screen.getByText(eng['settings.login_first']!)).toBeTruthy();
    expect(api.calls).toHaveLength(0);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, ok } from '../../test/apiMock';
import { startSagaWithState } from '../../test/runSaga';
import { historyActions } from './historySlice';
import { filterTab } from './HistoryPages';
import { isSettled, outcomeView, presetRange, type BetRecord } from './model';
import { BETRECORDS_PATH, loadHistory, loadRecent } from './sagas';
import { configureTransport } from '../../api';
import { PAIRS } from '../../test/apiMock';

const record = (outcome: number, extra: Partial<BetRecord> = {}): BetRecord => ({
  id: outcome + 100, type: 1, date_time: 1_800_000_000, amount: '10.00', k: '2.500', possible_win: '25.00', payout: '0.00', outcome, ...extra,
});

afterEach(() => vi.unstubAllGlobals());

describe('bet outcome presentation', () => {
  it('won shows Won with the payout and the bonus as an extra', () => {
    expect(outcomeView(record(3, { payout: '25.00', bonus: '2.50' }))).toEqual({
      cls: 'won', statusKey: 'history.status.won', labelKey: 'history.won', amount: '25.00', bonus: '2.50',
    });
    expect(outcomeView(record(3, { payout: '25.00', bonus: '0' })).bonus).toBeNull();
  });
  it('cashed out shows Payout', () => {
    expect(outcomeView(record(5, { payout: '14.20' }))).toMatchObject({ cls: 'won', labelKey: 'history.payout', amount: '14.20' });
  });
  it('everything else shows Possible win with its class', () => {
    expect(outcomeView(record(0))).toMatchObject({ cls: 'unsettled', labelKey: 'history.possible_win', amount: '25.00' });
    expect(outcomeView(record(-5))).toMatchObject({ cls: 'unsettled', statusKey: 'history.status.on_hold' });
    expect(outcomeView(record(1))).toMatchObject({ cls: 'lost', labelKey: 'history.possible_win', statusKey: 'history.status.lost' });
    expect(outcomeView(record(-4))).toMatchObject({ cls: 'lost', statusKey: 'history.status.declined' });
    expect(outcomeView(record(2))).toMatchObject({ cls: 'won', statusKey: 'history.status.returned', labelKey: 'history.possible_win' });
  });
  it('splits settled from unsettled', () => {
    const list = [record(0), record(1), record(3), record(-5), record(5)];
    expect(filterTab(list, 'unsettled').map((r) => r.outcome)).toEqual([0, -5]);
    expect(filterTab(list, 'settled').map((r) => r.outcome)).toEqual([1, 3, 5]);
    expect(isSettled(record(2))).toBe(true);
  });
  it('builds local-day ranges', () => {
    const now = new Date(2030, 4, 15, 13, 0, 0);
    const day = (d: number) => new Date(2030, 4, d).getTime() / 1000;
    expect(presetRange('today', now)).toEqual({ from: day(15), to: day(16) });
    expect(presetRange('yesterday', now)).toEqual({ from: day(14), to: day(15) });
    expect(presetRange('last3', now)).toEqual({ from: day(13), to: day(16) });
    expect(presetRange('week', now)).toEqual({ from: day(9), to: day(16) });
    expect(presetRange('month', now)).toEqual({ from: new Date(2030, 3, 15).getTime() / 1000, to: day(16) });
  });
});

describe('bet record sagas', () => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  const state = (loggedIn: boolean) => () => ({ session: { loginState: loggedIn ? 1 : 0 }, history: { preset: 'today' } });

  it('asks report/betrecods for the range, newest first', async () => {
    const api = mockApi({ [BETRECORDS_PATH]: () => ok({ list: [record(0, { id: 1, date_time: 10 }), record(3, { id: 2, date_time: 20 })], total: 2 }) });
    const run = startSagaWithState(state(true), loadHistory);
    await run.task.toPromise();
    const { from, to } = presetRange('today');
    expect(api.last(BETRECORDS_PATH)!.params).toEqual({ pn: 1000, from_date: from, to_date: to });
    expect(run.dispatched).toEqual([historyActions.loaded([record(3, { id: 2, date_time: 20 }), record(0, { id: 1, date_time: 10 })])]);
  });

  it('the right panel asks for the last 24 hours; a visitor gets an empty list without a call', async () => {
    const api = mockApi({ [BETRECORDS_PATH]: () => ok({ list: [], total: 0 }) });
    const guest = startSagaWithState(state(false), loadRecent);
    await guest.task.toPromise();
    expect(guest.dispatched).toEqual([historyActions.recentLoaded([])]);
    expect(api.calls).toHaveLength(0);
    const member = startSagaWithState(state(true), loadRecent);
    await member.task.toPromise();
    const p = api.last(BETRECORDS_PATH)!.params as { from_date: number; to_date: number };
    expect(p.to_date - p.from_date).toBe(86_400);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, ok, refuse } from '../../test/apiMock';
import { startSagaWithState } from '../../test/runSaga';
import reducer, { PATCH_LOADS, historyActions } from './historySlice';
import { filterTab } from './HistoryPages';
import { awaitsAnswer, cashoutOffered, isSettled, outcomeView, presetRange, type BetRecord } from './model';
import { BETRECORDS_PATH, loadHistory, loadRecent, reloadShown } from './sagas';
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

  it('a changed bet reloads, without a loading state, only what has been loaded', async () => {
    const api = mockApi({ [BETRECORDS_PATH]: () => ok({ list: [], total: 0 }) });
    const loaded = () => ({
      session: { loginState: 1 }, history: { preset: 'today', status: 'ready', recent: { status: 'idle' }, detail: { id: '9' } },
    });
    const run = startSagaWithState(loaded, reloadShown);
    await run.task.toPromise();
    expect(run.types().sort()).toEqual([historyActions.detailLoaded.type, historyActions.loaded.type]);
    expect(api.calls).toHaveLength(2);
    // The two loads run side by side: their order on the wire is not fixed.
    expect(api.calls.map((c) => String(c.params.BetId ?? '')).sort()).toEqual(['', '9']);
  });
});

describe('the duplicate-submission guard', () => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  const state = (status: string) => () => ({ session: { loginState: 1 }, history: { preset: 'today', status, recent: { status: 'idle' }, detail: { id: null } } });

  it('a reload refused as a repeat (-66666) is sent again after the wait; a failed refresh keeps the list', async () => {
    const at: number[] = [];
    const api = mockApi({
      [BETRECORDS_PATH]: () => (at.push(Date.now()) === 1 ? refuse(-66666, 'Repeated submission, please wait 1 seconds.', { wait: 1 }) : ok({ list: [record(5)] })),
    });
    const run = startSagaWithState(state('ready'), reloadShown);
    await run.task.toPromise();
    expect(api.calls).toHaveLength(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(990);
    expect(run.dispatched).toEqual([historyActions.loaded([record(5)])]);

    const refused = mockApi({ [BETRECORDS_PATH]: () => refuse(1002, 'no') });
    const again = startSagaWithState(state('ready'), reloadShown);
    await again.task.toPromise();
    expect(refused.calls).toHaveLength(1);
    expect(again.dispatched).toEqual([]);
  });
});

describe('patches from answers', () => {
  it('lie over stale loads until a load agrees on the status', () => {
    let s = reducer(undefined, historyActions.loaded([record(0, { id: 9 })]));
    s = reducer(s, historyActions.betPatched({ id: '9', changes: { outcome: 5, payout: '9.00' } }));
    expect(s.list[0]).toMatchObject({ outcome: 5, payout: '9.00' });
    s = reducer(s, historyActions.loaded([record(0, { id: 9 })])); // the read model is behind
    expect(s.list[0]).toMatchObject({ outcome: 5, payout: '9.00' });
    s = reducer(s, historyActions.loaded([record(5, { id: 9, payout: '9.10' })])); // now it agrees: its own data wins
    expect(s.list[0]).toMatchObject({ outcome: 5, payout: '9.10' });
    expect(s.patches).toEqual({});
  });

  it('give up after a few loads that keep disagreeing', () => {
    let s = reducer(undefined, historyActions.betPatched({ id: '9', changes: { outcome: 5 } }));
    for (let i = 1; i < PATCH_LOADS; i++) s = reducer(s, historyActions.loaded([record(0, { id: 9 })]));
    expect(s.list[0]!.outcome).toBe(5);
    s = reducer(s, historyActions.loaded([record(0, { id: 9 })]));
    expect(s.list[0]!.outcome).toBe(0);
  });
});

describe('cash-out and counter-offer offers', () => {
  it('Cash out is offered on an unsettled single or express with the cash_out flag', () => {
    expect(cashoutOffered(record(0, { cash_out: true }))).toBe(true);
    expect(cashoutOffered(record(0, { cash_out: true, type: 2 }))).toBe(true);
    expect(cashoutOffered(record(0, { cash_out: false }))).toBe(false);
    expect(cashoutOffered(record(0, { cash_out: true, type: 3 }))).toBe(false);
    expect(cashoutOffered(record(3, { cash_out: true }))).toBe(false);
    expect(cashoutOffered(record(-5, { cash_out: true }))).toBe(false);
  });

  it('an on-hold super bet awaits an answer until it is accepted or declined', () => {
    expect(awaitsAnswer(record(-5, { super_bet_status: 0 }))).toBe(true);
    expect(awaitsAnswer(record(-5, {}))).toBe(true);
    expect(awaitsAnswer(record(0, { super_bet_status: 1 }))).toBe(false);
    expect(awaitsAnswer(record(-4, { super_bet_status: -1 }))).toBe(false);
  });
});

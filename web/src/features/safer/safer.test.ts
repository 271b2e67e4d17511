import { configureStore } from '@reduxjs/toolkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api/transport';
import { rootReducer, type RootState } from '../../app/store';
import { PAIRS, mockApi, ok, refuse } from '../../test/apiMock';
import { startSaga } from '../../test/runSaga';
import { sessionActions } from '../session/sessionSlice';
import {
  changeTiming, exclusionEnd, limitAmountProblem, limitRows, pendingMessage, restrictionOf, settingsOf,
  signedMoney, timeoutEnd, usedShare, type RgLimit, type RgSettings,
} from './model';
import { STATEMENT_FILE, downloadStatement, loadSettings, saferSaga, setLimit, takeTimeout } from './sagas';
import { initialSaferState, saferActions as safer, selectSafer } from './saferSlice';
import { selectBusy, selectLimitRows, selectOutcomeOf, selectRestriction } from './selectors';
import createSagaMiddleware from 'redux-saga';

const NOW = Date.UTC(2030, 0, 15, 12, 0, 0); // 2030-01-15 12:00 UTC = 19:00 in Bangkok
const S = NOW / 1000;
const DEPOSIT_DAY: RgLimit = { kind: 'deposit', period: 'day', amount: '100.00', used: '20.00', pending: null };
const WIRE = {
  limits: [
    { kind: 'deposit', period: 'day', amount: '100.00', used: '20.00' },
    { kind: 'loss', period: 'week', amount: '500.00', used: '500.00', pending: { amount: '800.00', effective_at: S + 86_400 } },
    { kind: 'stake', period: 'month', amount: '1000', used: '0', pending: { amount: null, effective_at: S + 3600 } },
    { kind: 'bonus', period: 'day', amount: '1', used: '0' },
  ],
  timeout_until: 0, self_excluded_until: 0, reality_check_minutes: 30, currency: 'CNY',
};

describe('safer gambling rules (DESIGN.md "Responsible gambling")', () => {
  it('reads the settings as the wire sends them, dropping a kind or period it does not know', () => {
    const s = settingsOf(WIRE);
    expect(s.limits.map((l) => `${l.kind}/${l.period}`)).toEqual(['deposit/day', 'loss/week', 'stake/month']);
    expect(s.limits[0]!.pending).toBeNull();
    expect(s.limits[2]!.pending).toEqual({ amount: null, effective_at: S + 3600 });
    expect(s).toMatchObject({ reality_check_minutes: 30, currency: 'CNY', timeout_until: 0 });
    expect(settingsOf(null)).toEqual({ limits: [], timeout_until: 0, self_excluded_until: 0, reality_check_minutes: 0, currency: '' });
  });

  it('lays the limits out kind by period, with null where none is set', () => {
    const rows = limitRows(settingsOf(WIRE).limits);
    expect(rows.map((r) => r.kind)).toEqual(['deposit', 'loss', 'stake']);
    expect(rows[0]!.periods.map((p) => [p.period, p.limit?.amount ?? null])).toEqual([['day', '100.00'], ['week', null], ['month', null]]);
  });

  it('shows how much of a limit is used, at most all of it', () => {
    expect(usedShare(DEPOSIT_DAY)).toBe(0.2);
    expect(usedShare({ ...DEPOSIT_DAY, used: '250' })).toBe(1);
    expect(usedShare({ ...DEPOSIT_DAY, used: 'x' })).toBe(0);
  });

  it('names a waiting change: rises to X on a date, removed on a date', () => {
    const [, loss, stake] = settingsOf(WIRE).limits;
    expect(pendingMessage(loss!)).toEqual({ key: 'rg.pending.rises', args: ['800.00', '2030-01-16 19:00'] });
    expect(pendingMessage(stake!)).toEqual({ key: 'rg.pending.removed', args: ['2030-01-15 20:00'] });
    expect(pendingMessage(DEPOSIT_DAY)).toBeNull();
    expect(pendingMessage({ ...DEPOSIT_DAY, pending: { amount: '50', effective_at: S } })!.key).toBe('rg.pending.changes');
  });

  it('says when a change applies: a first or lower limit at once, a higher one or a removal after 24 hours', () => {
    expect(changeTiming(null, '50')).toBe('now');
    expect(changeTiming(DEPOSIT_DAY, '80')).toBe('now');
    expect(changeTiming(DEPOSIT_DAY, '120.50')).toBe('later');
    expect(changeTiming(DEPOSIT_DAY, '')).toBe('later');
    expect(changeTiming(null, '')).toBeNull();
    expect(changeTiming(DEPOSIT_DAY, '100')).toBeNull();
  });

  it('takes a positive amount with at most two decimals', () => {
    expect(limitAmountProblem('')).toEqual({ key: 'validation.required', args: [] });
    for (const bad of ['0', '0.00', '-5', '1.234', 'abc', '1e3']) expect(limitAmountProblem(bad)?.key, bad).toBe('rg.v.amount');
    expect(limitAmountProblem('2000000000')?.key).toBe('rg.v.amount_max');
    for (const good of ['1', '100.5', '0.01', ' 250.00 ']) expect(limitAmountProblem(good), good).toBeNull();
  });

  it('tells a running self-exclusion or time-out, the self-exclusion first, and nothing once it ended', () => {
    const base = settingsOf(WIRE);
    expect(restrictionOf(base, NOW)).toBeNull();
    expect(restrictionOf({ ...base, timeout_until: S + 60 }, NOW)).toEqual({ kind: 'timeout', until: S + 60 });
    expect(restrictionOf({ ...base, timeout_until: S - 1 }, NOW)).toBeNull();
    expect(restrictionOf({ ...base, timeout_until: S + 60, self_excluded_until: S + 999 }, NOW)).toEqual({ kind: 'self_exclusion', until: S + 999 });
    expect(restrictionOf(null, NOW)).toBeNull();
  });

  it('ends a time-out hours later and a self-exclusion calendar months later', () => {
    expect(timeoutEnd(1008, NOW)).toBe(S + 1008 * 3600);
    expect(exclusionEnd(6, NOW)).toBe(Date.UTC(2030, 6, 15, 12) / 1000);
    expect(exclusionEnd(60, NOW)).toBe(Date.UTC(2035, 0, 15, 12) / 1000);
  });

  it('signs the net result: a win with +, a loss with -', () => {
    expect(signedMoney('12.5')).toBe('+12.50');
    expect(signedMoney('-30')).toBe('-30.00');
    expect(signedMoney('0.00')).toBe('0.00');
    expect(signedMoney('1234.5')).toBe('+1,234.50');
  });
});

function store() {
  return configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
}

describe('safer slice and selectors', () => {
  it('keeps one change at a time and shows its outcome to the section that asked', () => {
    const s = store();
    s.dispatch(safer.loaded(settingsOf(WIRE)));
    s.dispatch(safer.timeoutRequested(24));
    expect(selectSafer(s.getState()).action).toEqual({ name: 'timeout', status: 'pending', error: null });
    expect(selectBusy(s.getState())).toBe(true);
    s.dispatch(safer.limitSetRequested({ kind: 'deposit', period: 'day', amount: '' })); // dropped: one is under way
    expect(selectSafer(s.getState()).action.name).toBe('timeout');
    s.dispatch(safer.actionFailed({ status: 2428, msg: 'x', key: 'error.2428', args: [] }));
    const forTimeout = selectOutcomeOf(['timeout']);
    const forLimits = selectOutcomeOf(['limit', 'remove']);
    expect(forTimeout(s.getState())).toMatchObject({ status: 'failed', error: { key: 'error.2428' } });
    expect(forLimits(s.getState())).toBeNull();
    s.dispatch(safer.limitSetRequested({ kind: 'deposit', period: 'day', amount: '' }));
    expect(forLimits(s.getState())).toMatchObject({ name: 'remove', status: 'pending' });
    s.dispatch(safer.actionSucceeded());
    s.dispatch(safer.actionCleared());
    expect(selectSafer(s.getState()).action).toEqual(initialSaferState.action);
  });

  it('derives the rows and the restriction, and forgets everything at logout', () => {
    const s = store();
    s.dispatch(safer.loaded({ ...settingsOf(WIRE), timeout_until: S + 100 }));
    expect(selectLimitRows(s.getState())[1]!.periods[1]!.limit?.amount).toBe('500.00');
    expect(selectRestriction(s.getState(), NOW)).toEqual({ kind: 'timeout', until: S + 100 });
    s.dispatch(sessionActions.loggedOut());
    expect(selectSafer(s.getState())).toEqual(initialSaferState);
  });
});

describe('safer sagas (user/rglimits ...)', () => {
  beforeEach(() => {
    configureTransport({ pairs: PAIRS, reportLogs: false });
    localStorage.setItem('webKey', 'k');
  });
  afterEach(() => vi.unstubAllGlobals());

  it('loads the settings', async () => {
    const api = mockApi({ 'user/rglimits': () => ok(WIRE) });
    const a = startSaga(loadSettings);
    await a.task.toPromise();
    expect(a.dispatched).toEqual([safer.loaded(settingsOf(WIRE))]);
    expect(api.last('user/rglimits')!.method).toBe('POST');
  });

  it('sets and removes a limit with rglimitset, the answer replacing the settings', async () => {
    const answer = { ...WIRE, limits: [{ kind: 'deposit', period: 'day', amount: '50.00', used: '20.00' }] };
    const api = mockApi({ 'user/rglimitset': () => ok(answer) });
    const run = startSaga(setLimit, safer.limitSetRequested({ kind: 'deposit', period: 'day', amount: ' 50 ' }));
    await run.task.toPromise();
    expect(api.last('user/rglimitset')!.params).toEqual({ kind: 'deposit', period: 'day', amount: '50' });
    expect(run.dispatched).toEqual([safer.loaded(settingsOf(answer)), safer.actionSucceeded()]);
    const removal = startSaga(setLimit, safer.limitSetRequested({ kind: 'loss', period: 'week', amount: '' }));
    await removal.task.toPromise();
    expect(api.last('user/rglimitset')!.params).toEqual({ kind: 'loss', period: 'week', amount: '' });
  });

  it('keeps a refusal in the member language (a time-out while self-excluded: 2406)', async () => {
    mockApi({ 'user/timeout': () => refuse(2406, 'self-excluded') });
    const run = startSaga(takeTimeout, safer.timeoutRequested(48));
    await run.task.toPromise();
    expect(run.dispatched).toEqual([safer.actionFailed(expect.objectContaining({ status: 2406, key: 'error.2406' }))]);
  });

  it('downloads the 12-month statement with the signed headers and saves statement.csv', async () => {
    const api = mockApi({ 'user/statement': () => new Response('date,kind,amount\n', { status: 200, headers: { 'Content-Type': 'text/csv' } }) });
    const created = vi.fn((_blob: Blob) => 'blob:statement');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(`${this.download} ${this.href}`);
    });
    const run = startSaga(downloadStatement);
    await run.task.toPromise();
    const call = api.last('user/statement')!;
    expect(call.method).toBe('GET');
    expect(call.params).toEqual({ months: '12' });
    expect(call.headers.Sign).toBeTruthy();
    expect(await created.mock.calls[0]![0].text()).toBe('date,kind,amount\n');
    expect(clicks).toEqual([`${STATEMENT_FILE} blob:statement`]);
    expect(run.dispatched).toEqual([safer.actionSucceeded()]);
  });

  it('reads a refused statement (a JSON envelope instead of the file) as its error', async () => {
    mockApi({ 'user/statement': () => refuse(12, 'Not logged in') });
    const run = startSaga(downloadStatement);
    await run.task.toPromise();
    expect(run.dispatched).toEqual([safer.actionFailed(expect.objectContaining({ status: 12, key: 'error.12' }))]);
  });

  it('runs in a store: the page asks, the settings come, a change follows', async () => {
    const answer = { ...WIRE, reality_check_minutes: 60 };
    mockApi({ 'user/rglimits': () => ok(WIRE), 'user/realitycheck': () => ok(answer) });
    const sagas = createSagaMiddleware();
    const s = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }).concat(sagas) });
    const task = sagas.run(saferSaga);
    const state = () => selectSafer(s.getState() as RootState);
    s.dispatch(safer.loadRequested());
    await vi.waitFor(() => expect(state().status).toBe('ready'));
    s.dispatch(safer.realityCheckRequested(60));
    await vi.waitFor(() => expect(state().action.status).toBe('done'));
    expect((state().settings as RgSettings).reality_check_minutes).toBe(60);
    task.cancel();
  });
});

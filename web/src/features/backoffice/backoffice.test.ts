import { configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api';
import { rootReducer, type RootState } from '../../app/store';
import { BO_BASE, boFetch, toBoError, type BoRequest } from './api';
import { backofficeActions as bo, selectBackoffice } from './backofficeSlice';
import { offerBody, validateDecline, validateOffer } from './forms';
import { canUse, matchBackoffice, navFor, sectionPath } from './roles';
import { QUEUE_REFRESH_MS, backofficeSaga, type BackofficeDeps } from './sagas';
import { STORAGE_KEY, loadStaffAuth } from './storage';
import { selectionOf } from './types';
import { movementAmount } from './AuditPage';

const err = (status: number, httpStatus: number, msg = '') => new ApiError(status, { httpStatus, serverMsg: msg });

describe('roles and navigation', () => {
  it('support sees the queue, auditors the audit, admins both; nobody else anything', () => {
    expect(navFor('support')).toEqual(['queue', 'seasons', 'safer']);
    expect(navFor('auditor')).toEqual(['audit']);
    expect(navFor('admin')).toEqual(['queue', 'audit', 'finance', 'seasons', 'safer', 'content', 'promo']);
    expect(navFor('finance')).toEqual(['finance']);
    expect(navFor('marketing')).toEqual(['content', 'promo']);
    expect(canUse('support', 'promo')).toBe(false);
    expect(canUse('finance', 'content')).toBe(false);
    expect(canUse('support', 'finance')).toBe(false);
    expect(navFor('intern')).toEqual([]);
    expect(canUse('support', 'audit')).toBe(false);
    expect(canUse('auditor', 'queue')).toBe(false);
  });

  it('reads the back office paths', () => {
    expect(matchBackoffice('/backoffice')).toEqual({ section: null, betId: null });
    expect(matchBackoffice('/backoffice/queue')).toEqual({ section: 'queue', betId: null });
    expect(matchBackoffice('/backoffice/queue/42')).toEqual({ section: 'queue', betId: '42' });
    expect(matchBackoffice('/backoffice/audit/7')).toEqual({ section: 'audit', betId: '7' });
    for (const p of ['/backoffice/staff', '/backoffice/queue/x', '/backoffice/audit/1/2']) expect(matchBackoffice(p).section, p).toBe('unknown');
    expect(sectionPath('audit', 7)).toBe('/backoffice/audit/7');
    expect(sectionPath('queue')).toBe('/backoffice/queue');
  });
});

describe('decision forms', () => {
  it('an offer needs a stake and/or odds, a stake above 0 up to the requested one, odds above 1, and a reason', () => {
    expect(validateOffer({ amount: '', price: '', reason: '' }, 100)).toEqual({
      form: { key: 'bo.v.amount_or_price' }, reason: { key: 'bo.v.reason' },
    });
    expect(validateOffer({ amount: '100.01', price: '1', reason: 'x' }, 100)).toEqual({
      amount: { key: 'bo.v.amount_max', args: ['100.00'] }, price: { key: 'bo.v.price_min' },
    });
    expect(validateOffer({ amount: '0', price: '', reason: 'x' }, 100)).toEqual({ amount: { key: 'bo.v.amount_positive' } });
    expect(validateOffer({ amount: '50', price: '', reason: 'limit' }, 100)).toEqual({});
    expect(validateOffer({ amount: '', price: '1.9', reason: ' limit ' }, 100)).toEqual({});
    expect(offerBody({ amount: '50', price: '', reason: ' limit ' })).toEqual({ amount: 50, reason: 'limit' });
    expect(offerBody({ amount: '', price: '1.9', reason: 'x' })).toEqual({ price: 1.9, reason: 'x' });
  });

  it('a decline needs a reason', () => {
    expect(validateDecline('  ')).toEqual({ key: 'bo.v.reason' });
    expect(validateDecline('Suspicious')).toBeNull();
  });
});

describe('back office errors', () => {
  it('401 ends the session, 403 is not allowed for the role, codes come from the catalogue', () => {
    expect(toBoError(err(-401, 401, 'Not logged in'))).toMatchObject({ kind: 'auth', key: 'bo.expired' });
    expect(toBoError(err(-403, 403, 'Not allowed for your role'))).toMatchObject({ kind: 'forbidden', key: 'bo.forbidden' });
    expect(toBoError(err(-404, 404))).toMatchObject({ kind: 'notFound' });
    expect(toBoError(err(1109, 400, 'Wrong amount'))).toMatchObject({ kind: 'refused', key: 'error.1109' });
    expect(toBoError(err(-70009, 400, 'Invalid request parameters: amount'))).toMatchObject({ kind: 'refused', key: '', text: 'Invalid request parameters: amount' });
    // a refused login is an answer, not an ended session
    expect(toBoError(err(1002, 401, 'Invalid username and/or password'))).toMatchObject({ kind: 'refused', key: 'error.1002' });
    expect(toBoError(err(1022, 401))).toMatchObject({ kind: 'refused', key: 'error.1022' });
    expect(toBoError(new ApiError(-1))).toMatchObject({ kind: 'network', key: 'error.network' });
  });

  it('boFetch sends plain JSON with the bearer token and unwraps the envelope', async () => {
    const fetchSpy = vi.fn(async () => new Response(JSON.stringify({ status: 0, msg: 'OK', data: { username: 'sam', role: 'support' } }), { status: 200 }));
    vi.stubGlobal('fetch', fetchSpy);
    await expect(boFetch({ method: 'GET', path: '/me', token: 'T1' })).resolves.toEqual({ username: 'sam', role: 'support' });
    const [url, init] = fetchSpy.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe(`${BO_BASE}/me`);
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer T1');
    fetchSpy.mockResolvedValueOnce(new Response(JSON.stringify({ status: -403, msg: 'Not allowed for your role' }), { status: 403 }));
    await expect(boFetch({ method: 'POST', path: '/audit/replay', token: 'T1' })).rejects.toMatchObject({ status: -403, httpStatus: 403 });
    vi.unstubAllGlobals();
  });
});

describe('queued selections', () => {
  it('reads the contract shape and a bet record event alike', () => {
    expect(selectionOf({ event_id: 1, game: 'A - B', market: 'Match Result', selection: 'A', price: 2 }, 0))
      .toEqual({ key: '1', game: 'A - B', market: 'Match Result', selection: 'A', price: 2 });
    expect(selectionOf({ selection_id: 9, team1: 'A', team2: 'B', market_name: 'Match Result', event_name: 'A', coeficient: '2.524' }, 0))
      .toEqual({ key: '9', game: 'A - B', market: 'Match Result', selection: 'A', price: '2.524' });
  });
});

describe('wallet movements', () => {
  it('shows the amount of a flat payload and of an event-named one', () => {
    expect(movementAmount({ payload: { amount: '10.00' } })).toBe('10.00');
    expect(movementAmount({ payload: { StakeTaken: { amount: '1500.00', reference: 'bet:1:take' } } })).toBe('1,500.00');
    expect(movementAmount({ payload: { Opened: { currency: 'CNY' } } })).toBe('—');
  });
});

describe('staff token storage', () => {
  afterEach(() => sessionStorage.clear());
  it('keeps a token in sessionStorage until it expires', () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token: 'T', role: 'support', username: 'sam', expires: Date.now() + 1000 }));
    expect(loadStaffAuth()).toMatchObject({ token: 'T', role: 'support' });
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token: 'T', role: 'support', username: 'sam', expires: Math.floor(Date.now() / 1000) - 5 }));
    expect(loadStaffAuth()).toBeNull();
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
  });
});

type Route = (req: BoRequest) => unknown;

/** A store with the back office saga; `routes` answer by "METHOD path" (throw an ApiError to refuse). */
function start(routes: Record<string, Route>) {
  const calls: BoRequest[] = [];
  const deps: BackofficeDeps = {
    fetch: async <T,>(req: BoRequest) => {
      calls.push(req);
      const route = routes[`${req.method} ${req.path}`];
      if (!route) throw err(-404, 404);
      return (await route(req)) as T;
    },
  };
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga),
  });
  store.dispatch({ type: 'test/init' }); // the injected slice gets its state
  const task = saga.run(backofficeSaga, deps);
  const bos = () => selectBackoffice(store.getState() as RootState);
  return { store, calls, task, bos };
}

const LOGIN = { token: 'T1', role: 'support', username: 'sam', expires: Date.now() + 8 * 3600_000 };
const ITEM = {
  bet_id: 77, user_id: 7, username: 'demo', currency: 'CNY', type: 1, amount: '100.00', k: '2.000', possible_win: '200.00',
  placed_at: 1_800_000_000_000, status: -5, super_bet_status: 0, counter_offer: null,
  events: [{ event_id: 1, game: 'A - B', market: 'Match Result', selection: 'A', price: 2 }],
};

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  sessionStorage.clear();
});

describe('back office saga', () => {
  it('login: POST /login, the token kept in sessionStorage, the role shown', async () => {
    const { store, calls, bos, task } = start({ 'POST /login': () => LOGIN });
    store.dispatch(bo.loginRequested({ username: 'sam', password: 'support1234' }));
    expect(bos().login.pending).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[0]).toEqual({ method: 'POST', path: '/login', body: { username: 'sam', password: 'support1234' } });
    expect(bos().auth).toMatchObject({ token: 'T1', role: 'support', username: 'sam' });
    expect(JSON.parse(sessionStorage.getItem(STORAGE_KEY)!)).toMatchObject({ token: 'T1', role: 'support' });
    task.cancel();
  });

  it('a refused login stays on the form with the catalogue message', async () => {
    const { store, bos, task } = start({ 'POST /login': () => { throw err(1002, 401, 'Invalid username and/or password'); } });
    store.dispatch(bo.loginRequested({ username: 'sam', password: 'nope' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(bos()).toMatchObject({ auth: null, notice: null, login: { pending: false, error: { kind: 'refused', key: 'error.1002' } } });
    task.cancel();
  });

  it('a stored token is checked with GET /me; a 401 anywhere goes back to the login form and forgets the token', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ ...LOGIN, role: 'admin' }));
    const { store, calls, bos, task } = start({
      'GET /me': () => ({ username: 'sam', role: 'admin' }),
      'GET /counter-offers?status=open': () => { throw err(-401, 401, 'Not logged in'); },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/me', token: 'T1' });
    expect(bos()).toMatchObject({ checking: false, auth: { role: 'admin' } });
    store.dispatch(bo.queueWatchStarted());
    await vi.advanceTimersByTimeAsync(0);
    expect(bos()).toMatchObject({ auth: null, notice: 'bo.expired' });
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    task.cancel();
  });

  it('the queue: GET /counter-offers?status=open now and every 5 s while shown; the filter reloads at once', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(LOGIN));
    const { store, calls, bos, task } = start({
      'GET /me': () => ({ username: 'sam', role: 'support' }),
      'GET /counter-offers?status=open': () => [ITEM],
      'GET /counter-offers?status=all': () => [ITEM, { ...ITEM, bet_id: 78, status: -4, super_bet_status: -1 }],
    });
    const queueCalls = () => calls.filter((c) => c.path.startsWith('/counter-offers')).map((c) => c.path);
    store.dispatch(bo.queueWatchStarted());
    await vi.advanceTimersByTimeAsync(0);
    expect(queueCalls()).toEqual(['/counter-offers?status=open']);
    expect(bos().queue).toMatchObject({ status: 'ready', list: [{ bet_id: 77 }] });
    await vi.advanceTimersByTimeAsync(QUEUE_REFRESH_MS);
    expect(queueCalls()).toHaveLength(2);
    store.dispatch(bo.queueFilterChosen('all'));
    await vi.advanceTimersByTimeAsync(0);
    expect(queueCalls().at(-1)).toBe('/counter-offers?status=all');
    expect(bos().queue.list).toHaveLength(2);
    store.dispatch(bo.queueWatchStopped());
    await vi.advanceTimersByTimeAsync(QUEUE_REFRESH_MS * 3);
    expect(queueCalls()).toHaveLength(3);
    task.cancel();
  });

  it('403 shows Not allowed for your role and stops polling, the session stays', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ ...LOGIN, role: 'auditor' }));
    const { store, calls, bos, task } = start({
      'GET /me': () => ({ username: 'ann', role: 'auditor' }),
      'GET /counter-offers?status=open': () => { throw err(-403, 403, 'Not allowed for your role'); },
    });
    store.dispatch(bo.queueWatchStarted());
    await vi.advanceTimersByTimeAsync(QUEUE_REFRESH_MS * 2);
    expect(bos().queue.error).toMatchObject({ kind: 'forbidden', key: 'bo.forbidden' });
    expect(bos().auth).not.toBeNull();
    expect(calls.filter((c) => c.path.startsWith('/counter-offers'))).toHaveLength(1);
    task.cancel();
  });

  it('offer, accept and decline post to the bet, then the bet and the queue load again; a refusal is shown', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(LOGIN));
    const detail = { bet: ITEM, member: { user_id: 7, username: 'demo', currency: 'CNY', balance: '900.00', max_stake: '50.00' }, recent: [] };
    const { store, calls, bos, task } = start({
      'GET /me': () => ({ username: 'sam', role: 'support' }),
      'GET /counter-offers/77': () => detail,
      'GET /counter-offers?status=open': () => [ITEM],
      'POST /counter-offers/77/offer': () => null,
      'POST /counter-offers/77/decline': () => { throw err(1027, 400, 'not on hold'); },
    });
    store.dispatch(bo.detailRequested('77'));
    await vi.advanceTimersByTimeAsync(0);
    expect(bos().detail).toMatchObject({ status: 'ready', data: { member: { max_stake: '50.00' } } });
    store.dispatch(bo.offerRequested({ betId: '77', amount: 50, reason: 'limit' }));
    expect(bos().decision.pending).toBe('offer');
    await vi.advanceTimersByTimeAsync(0);
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post).toEqual({ method: 'POST', path: '/counter-offers/77/offer', body: { amount: 50, reason: 'limit' }, token: 'T1' });
    expect(bos().decision).toEqual({ pending: null, error: null, done: 'offer' });
    expect(calls.slice(-2).map((c) => c.path)).toEqual(['/counter-offers/77', '/counter-offers?status=open']);
    store.dispatch(bo.declineRequested({ betId: '77', reason: 'Suspicious' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.at(-1)).toMatchObject({ path: '/counter-offers/77/decline', body: { reason: 'Suspicious' } });
    expect(bos().decision).toMatchObject({ pending: null, done: null, error: { kind: 'refused', key: 'error.1027' } });
    task.cancel();
  });

  it('one bet on screen reloads every 5 s until its screen closes', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(LOGIN));
    const detail = { bet: ITEM, member: { user_id: 7, username: 'demo', currency: 'CNY', balance: '900.00', max_stake: '50.00' }, recent: [] };
    const { store, calls, task } = start({ 'GET /me': () => ({ username: 'sam', role: 'support' }), 'GET /counter-offers/77': () => detail });
    const loads = () => calls.filter((c) => c.path === '/counter-offers/77').length;
    store.dispatch(bo.detailRequested('77'));
    await vi.advanceTimersByTimeAsync(0);
    expect(loads()).toBe(1);
    await vi.advanceTimersByTimeAsync(QUEUE_REFRESH_MS);
    expect(loads()).toBe(2);
    store.dispatch(bo.detailWatchStopped());
    await vi.advanceTimersByTimeAsync(QUEUE_REFRESH_MS * 3);
    expect(loads()).toBe(2);
    task.cancel();
  });

  it('audit: search by bet id, the trail with the replayed states, and the replay check', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ ...LOGIN, role: 'auditor' }));
    const trail = {
      bet_id: 77,
      events: [{ sequence: 1, event_type: 'BetPlaced', recorded_at: '2030-01-01T10:00:00Z', payload: { amount: '100.00' }, metadata: null, state: { status: -5 } }],
      wallet: [{ sequence: 3, event_type: 'StakeReserved', recorded_at: 1, reference: 'bet:77:stake', payload: { amount: '100.00' }, balances: { balance: '900.00' } }],
    };
    const { store, calls, bos, task } = start({
      'GET /me': () => ({ username: 'ann', role: 'auditor' }),
      'GET /bets?bet_id=77': () => [{ id: 77, type: 1, amount: '100.00', k: '2.000', outcome: -5, date_time: 1 }],
      'GET /bets/77/events': () => trail,
      'POST /audit/replay': () => ({ checked: 12, differences: [{ bet_id: 5, field: 'payout', store: '10.00', read_model: '0.00' }] }),
    });
    store.dispatch(bo.searchRequested('77'));
    store.dispatch(bo.trailRequested('77'));
    store.dispatch(bo.replayRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /me', 'GET /bets?bet_id=77', 'GET /bets/77/events', 'POST /audit/replay']);
    expect(bos().search).toMatchObject({ status: 'ready', list: [{ id: 77 }] });
    expect(bos().trail).toMatchObject({ status: 'ready', data: trail });
    expect(bos().replay).toMatchObject({ status: 'ready', result: { checked: 12, differences: [{ bet_id: 5 }] } });
    task.cancel();
  });

  it('logout posts /logout and forgets the token even when the call fails', async () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(LOGIN));
    const { store, calls, bos, task } = start({ 'GET /me': () => ({ username: 'sam', role: 'support' }) });
    store.dispatch(bo.logoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.at(-1)).toMatchObject({ method: 'POST', path: '/logout' });
    expect(bos()).toMatchObject({ auth: null, notice: null });
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    task.cancel();
  });
});

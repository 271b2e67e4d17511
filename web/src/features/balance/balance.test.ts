import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, delay, race, take } from 'redux-saga/effects';
import { configureTransport } from '../../api/transport';
import { PAIRS, mockApi, ok, refuse } from '../../test/apiMock';
import { DEMO_BALANCE } from '../../test/fetchMock';
import { startSaga, startSagaWithState } from '../../test/runSaga';
import { readSkin } from '../../test/skins';
import { settle, until } from '../../test/settle';
import { configActions } from '../config/configSlice';
import type { SiteConfig } from '../config/types';
import { sessionActions } from '../session/sessionSlice';
import { LOGGED_IN, LOGGED_OUT } from '../session/types';
import reducer, { balanceActions } from './balanceSlice';
import { BALANCE_PATH, BALANCE_POLL_MS, balanceSaga, balanceWatcher, fetchBalance } from './sagas';

const conf = readSkin<SiteConfig>('conf.json');
const AUTH = { auth_token: 'tok', user_id: 7, username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const count = (api: ReturnType<typeof mockApi>) => api.calls.filter((c) => c.path === BALANCE_PATH).length;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('balanceWatcher, stepped', () => {
  it('fetches, then waits for the poll delay or a refresh request', () => {
    const gen = balanceWatcher(BALANCE_POLL_MS);
    expect(gen.next().value).toEqual(call(fetchBalance));
    expect(gen.next(true).value).toEqual(
      race({ tick: delay(BALANCE_POLL_MS), refresh: take(balanceActions.refreshRequested.type) }),
    );
    expect(gen.next({ tick: true }).value).toEqual(call(fetchBalance));
  });

  it('stops polling when the server says not logged in, until a refresh request', () => {
    const gen = balanceWatcher(BALANCE_POLL_MS);
    gen.next();
    expect(gen.next(false).value).toEqual(take(balanceActions.refreshRequested.type));
  });
});

describe('balance polling through user/getbalance, run', () => {
  it('polls every 60000 ms and on refresh requests', async () => {
    const api = mockApi({ [BALANCE_PATH]: () => ok(DEMO_BALANCE) });
    const run = startSaga(balanceWatcher, BALANCE_POLL_MS);
    await until(() => run.dispatched.length >= 2);
    expect(count(api)).toBe(1);
    expect(api.calls[0]!.method).toBe('POST');
    expect(run.dispatched).toContainEqual(balanceActions.fetched(DEMO_BALANCE));

    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS - 1);
    expect(count(api)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => run.dispatched.length >= 4);
    expect(count(api)).toBe(2);

    run.dispatch(balanceActions.refreshRequested());
    await until(() => run.dispatched.length >= 6);
    expect(count(api)).toBe(3);
    run.task.cancel();
  });

  it('treats status 12 as logged out and stops polling', async () => {
    const api = mockApi({ [BALANCE_PATH]: () => refuse(12, 'Not logged in') });
    const run = startSaga(balanceWatcher, BALANCE_POLL_MS);
    await until(() => run.dispatched.length >= 2);
    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS * 3);
    await settle();
    expect(count(api)).toBe(1);
    expect(run.types()).toEqual([balanceActions.fetchStarted.type, balanceActions.notLoggedIn.type]);
    run.task.cancel();
  });

  it('keeps polling through a network failure', async () => {
    let fail = true;
    const api = mockApi({ [BALANCE_PATH]: () => (fail ? Promise.reject(new TypeError('offline')) : ok(DEMO_BALANCE)) });
    const run = startSaga(balanceWatcher, BALANCE_POLL_MS);
    await until(() => run.dispatched.length >= 2);
    expect(run.dispatched[1]).toMatchObject({ type: balanceActions.fetchFailed.type, payload: { msg: 'Network request failed' } });
    fail = false;
    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS);
    await until(() => run.dispatched.length >= 4);
    expect(count(api)).toBe(2);
    expect(run.dispatched.at(-1)).toEqual(balanceActions.fetched(DEMO_BALANCE));
    run.task.cancel();
  });

  // Retried: about one run in ten, under load, the first fetch after the
  // login never shows within the test's time (a timing issue of the fake
  // clock and WebCrypto in jsdom that the stepped tests above do not have).
  it('starts on login with the configured interval and stops on logout', { retry: 2 }, async () => {
    const api = mockApi({ [BALANCE_PATH]: () => ok(DEMO_BALANCE) });
    let state = { session: { loginState: LOGGED_OUT as number } };
    const run = startSagaWithState(() => state, balanceSaga);
    run.dispatch(configActions.loaded({ ...conf, balance_poll_ms: 5000 }));
    await settle();
    expect(count(api)).toBe(0);

    state = { session: { loginState: LOGGED_IN } };
    run.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    await until(() => count(api) === 1);
    expect(count(api)).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    await until(() => count(api) === 2);
    expect(count(api)).toBe(2);

    state = { session: { loginState: LOGGED_OUT } };
    run.dispatch(sessionActions.loggedOut());
    await until(() => run.dispatched.at(-1)?.type === balanceActions.notLoggedIn.type, 'logout');
    await vi.advanceTimersByTimeAsync(50_000);
    await settle();
    expect(count(api)).toBe(2);
    run.task.cancel();
  });
});

describe('balance slice', () => {
  it('keeps the last balance on a failure and drops it on logout', () => {
    let state = reducer(undefined, balanceActions.fetched(DEMO_BALANCE));
    state = reducer(state, balanceActions.fetchFailed({ status: -1, msg: 'x', key: 'error.network', args: [] }));
    expect(state.info?.balance).toBe('10000.00');
    expect(state.session).toBe('member');
    state = reducer(state, balanceActions.notLoggedIn());
    expect(state).toMatchObject({ session: 'guest', info: null });
  });
});

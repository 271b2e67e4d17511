import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, delay, race, take } from 'redux-saga/effects';
import { DEMO_BALANCE, envelope, mockFetch } from '../../test/fetchMock';
import { startSaga } from '../../test/runSaga';
import { readSkin } from '../../test/skins';
import { configActions } from '../config/configSlice';
import type { SiteConfig } from '../config/types';
import reducer, { balanceActions } from './balanceSlice';
import { BALANCE_POLL_MS, BALANCE_URL, balanceSaga, balanceWatcher, fetchBalance } from './sagas';

const conf = readSkin<SiteConfig>('conf.json');
const fetchCount = (spy: ReturnType<typeof mockFetch>) => spy.mock.calls.filter(([url]) => url === BALANCE_URL).length;

beforeEach(() => {
  vi.useFakeTimers();
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

  it('stops polling for a guest until a refresh request', () => {
    const gen = balanceWatcher(BALANCE_POLL_MS);
    gen.next();
    expect(gen.next(false).value).toEqual(take(balanceActions.refreshRequested.type));
  });
});

describe('balance polling, run', () => {
  it('polls every 60000 ms and on refresh requests', async () => {
    const spy = mockFetch({ [BALANCE_URL]: () => envelope(DEMO_BALANCE) });
    const run = startSaga(balanceWatcher, BALANCE_POLL_MS);
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchCount(spy)).toBe(1);
    expect(run.dispatched).toContainEqual(balanceActions.fetched(DEMO_BALANCE));

    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS - 1);
    expect(fetchCount(spy)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchCount(spy)).toBe(2);

    run.dispatch(balanceActions.refreshRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchCount(spy)).toBe(3);

    // The refresh restarted the wait: the next poll is a full interval later.
    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS - 1);
    expect(fetchCount(spy)).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchCount(spy)).toBe(4);
    run.task.cancel();
  });

  it.each([
    ['HTTP 404', () => new Response('', { status: 404 })],
    ['status 12', () => envelope(null, 12)],
  ])('treats %s as logged out and stops polling', async (_name, answer) => {
    const spy = mockFetch({ [BALANCE_URL]: answer });
    const run = startSaga(balanceWatcher, BALANCE_POLL_MS);
    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS * 3);
    expect(fetchCount(spy)).toBe(1);
    expect(run.types()).toEqual([balanceActions.fetchStarted.type, balanceActions.notLoggedIn.type]);

    run.dispatch(balanceActions.refreshRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchCount(spy)).toBe(2);
    run.task.cancel();
  });

  it('keeps polling through a network failure', async () => {
    const spy = vi.fn().mockRejectedValueOnce(new TypeError('offline')).mockResolvedValue(envelope(DEMO_BALANCE));
    vi.stubGlobal('fetch', spy);
    const run = startSaga(balanceWatcher, BALANCE_POLL_MS);
    await vi.advanceTimersByTimeAsync(0);
    expect(run.dispatched[1]).toMatchObject({ type: balanceActions.fetchFailed.type, payload: { msg: 'Network request failed' } });
    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS);
    expect(run.dispatched.at(-1)).toEqual(balanceActions.fetched(DEMO_BALANCE));
    run.task.cancel();
  });

  it('starts after the configuration and uses its poll interval', async () => {
    const spy = mockFetch({ [BALANCE_URL]: () => envelope(DEMO_BALANCE) });
    const run = startSaga(balanceSaga);
    await vi.advanceTimersByTimeAsync(BALANCE_POLL_MS);
    expect(fetchCount(spy)).toBe(0);
    run.dispatch(configActions.loaded({ ...conf, balance_poll_ms: 5000 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchCount(spy)).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fetchCount(spy)).toBe(2);
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

import { configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SWARM_SESSION_LOST, SwarmError, type ConnectionEvent, type SwarmConnection } from '../../api/swarm';
import { rootReducer } from '../../app/store';
import { sessionActions } from '../session/sessionSlice';
import reducer, { liveActions, queryKey, type SwarmQuery } from './liveSlice';
import { connectionLoop, MAX_SOCKET_ATTEMPTS, PING_MS, RETRY_STEP_MS, SOCKET_RETRY_AFTER_POLL_MS, type LiveDeps } from './sagas';

type Handler = (params: Record<string, unknown> | undefined, n: number) => unknown;

/** A connection whose answers the test scripts; it records every command. */
class FakeConnection implements SwarmConnection {
  sent: Array<{ command: string; params?: Record<string, unknown> }> = [];
  private listeners = new Set<(e: ConnectionEvent) => void>();
  private counts: Record<string, number> = {};
  constructor(
    readonly kind: 'socket' | 'poll',
    private handlers: Record<string, Handler> = {},
  ) {}
  async request<T>(command: string, params?: Record<string, unknown>): Promise<T> {
    this.sent.push({ command, params });
    const n = (this.counts[command] = (this.counts[command] ?? 0) + 1);
    const handler = this.handlers[command];
    if (handler) return handler(params, n) as T;
    if (command === 'request_session') return { sid: `sid${n}` } as T;
    if (command === 'get') return { subid: 'S1', data: { sport: {} } } as T;
    if (command === 'whats_up') return {} as T;
    return {} as T;
  }
  listen(l: (e: ConnectionEvent) => void) {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }
  emit(e: ConnectionEvent) {
    [...this.listeners].forEach((l) => l(e));
  }
  signalLost() {
    this.emit({ type: 'lost' });
  }
  close() {
    this.emit({ type: 'closed' });
  }
  commands = () => this.sent.map((s) => s.command);
}

const QUERY: SwarmQuery = { what: { sport: ['id'], game: '@count' }, where: { game: { type: 1 } } };
const KEY = queryKey(QUERY);
const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };

function start(deps: LiveDeps, { loggedIn = false } = {}) {
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (getDefault) => getDefault({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga),
  });
  store.dispatch({ type: 'config/loaded', payload: { site_id: 1054, default_language: 'eng', odds_format: 'decimal' } });
  if (loggedIn) store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  const task = saga.run(connectionLoop, deps);
  return { store, task };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('live slice', () => {
  it('merges pushes into the subscription with that subid', () => {
    let s = reducer(undefined, liveActions.subscribeRequested({ key: KEY, query: QUERY }));
    s = reducer(s, liveActions.subscribed({ key: KEY, subid: 'S1', data: { sport: { '1': { id: 1, game: 3 } } } }));
    s = reducer(s, liveActions.pushed({ S1: { sport: { '1': { game: 4 }, '2': { id: 2 } } }, S9: { x: 1 } }));
    expect(s.subs[KEY]!.data).toEqual({ sport: { '1': { id: 1, game: 4 }, '2': { id: 2 } } });
  });

  it('counts users of one query and resets every subscription on a new session', () => {
    let s = reducer(undefined, liveActions.subscribeRequested({ key: KEY, query: QUERY }));
    s = reducer(s, liveActions.subscribeRequested({ key: KEY, query: QUERY }));
    s = reducer(s, liveActions.unsubscribeRequested({ key: KEY }));
    expect(s.subs[KEY]!.refs).toBe(1);
    s = reducer(s, liveActions.subscribed({ key: KEY, subid: 'S1', data: {} }));
    s = reducer(s, liveActions.sessionReset());
    expect(s.subs[KEY]).toMatchObject({ status: 'new', subid: null });
  });

  it('keys queries independently of property order', () => {
    expect(queryKey({ where: { game: { type: 1 } }, what: { game: ['id'] } } as SwarmQuery)).toBe(queryKey({ what: { game: ['id'] }, where: { game: { type: 1 } } }));
  });
});

describe('connection saga', () => {
  it('tries the WebSocket again after falling back to long-poll, and leaves the poll once it opens', async () => {
    const poll = new FakeConnection('poll');
    const socket = new FakeConnection('socket');
    let refuse = true;
    let tries = 0;
    const deps: LiveDeps = {
      openSocket: () => (tries++, refuse ? Promise.reject(new Error('blocked by a proxy')) : Promise.resolve(socket)),
      openPoll: vi.fn(() => poll),
    };
    const { store, task } = start(deps);
    await vi.advanceTimersByTimeAsync(RETRY_STEP_MS * (1 + 2 + 3 + 4));
    expect(store.getState().live.connection).toBe('polling');
    expect(tries).toBe(MAX_SOCKET_ATTEMPTS);
    // still blocked a minute later: one more try, polling goes on
    await vi.advanceTimersByTimeAsync(SOCKET_RETRY_AFTER_POLL_MS);
    expect(tries).toBe(MAX_SOCKET_ATTEMPTS + 1);
    expect(store.getState().live.connection).toBe('polling');
    refuse = false;
    await vi.advanceTimersByTimeAsync(SOCKET_RETRY_AFTER_POLL_MS);
    expect(socket.commands()[0]).toBe('request_session');
    expect(store.getState().live.connection).toBe('open');
    const polled = poll.commands().length;
    await vi.advanceTimersByTimeAsync(5000);
    expect(poll.commands().length).toBe(polled);
    expect(deps.openPoll).toHaveBeenCalledTimes(1);
    task.cancel();
  });

  it('retries the socket after 2000 ms x attempt and polls after the 5th failure', async () => {
    const attempts: number[] = [];
    const t0 = Date.now();
    const poll = new FakeConnection('poll');
    const deps: LiveDeps = {
      openSocket: () => (attempts.push(Date.now() - t0), Promise.reject(new Error('refused'))),
      openPoll: vi.fn(() => poll),
    };
    const { store, task } = start(deps);
    expect(store.getState().live).toMatchObject({ connection: 'connecting', attempt: 1 });
    await vi.advanceTimersByTimeAsync(RETRY_STEP_MS * (1 + 2 + 3 + 4) - 1);
    expect(attempts).toEqual([0, 2000, 6000, 12000]);
    expect(deps.openPoll).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toEqual([0, 2000, 6000, 12000, 20000]);
    expect(attempts).toHaveLength(MAX_SOCKET_ATTEMPTS);
    expect(deps.openPoll).toHaveBeenCalledTimes(1);
    expect(store.getState().live.connection).toBe('polling');
    await vi.advanceTimersByTimeAsync(1500);
    expect(poll.commands()).toEqual(['request_session', 'whats_up', 'whats_up', 'whats_up']);
    expect(poll.sent[0]!.params).toEqual({ language: 'eng', site_id: 1054, source: 42 });
    task.cancel();
  });

  it('applies long-poll pushes in order', async () => {
    const poll = new FakeConnection('poll', {
      get: () => ({ subid: 'S1', data: { n: 0 } }),
      whats_up: (_p, n) => (n === 2 ? { S1: { n: 1, k: 1 } } : n === 3 ? { S1: { n: 2, m: 1, k: null } } : {}),
    });
    const { store, task } = start({ openSocket: () => Promise.reject(new Error('x')), openPoll: () => poll });
    store.dispatch(liveActions.subscribeRequested({ key: KEY, query: QUERY }));
    await vi.advanceTimersByTimeAsync(20_000 + 2_000);
    expect(store.getState().live.subs[KEY]!.data).toEqual({ n: 2, m: 1 });
    task.cancel();
  });

  it('on code 5 requests a new session, restores the login and subscribes everything again', async () => {
    const poll = new FakeConnection('poll', {
      whats_up: (_p, n) => {
        if (n === 2) throw new SwarmError(SWARM_SESSION_LOST, 'Session lost');
        return {};
      },
    });
    const { store, task } = start({ openSocket: () => Promise.reject(new Error('x')), openPoll: () => poll }, { loggedIn: true });
    store.dispatch(liveActions.subscribeRequested({ key: KEY, query: QUERY }));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(poll.commands()).toEqual(['request_session', 'restore_login', 'get']);
    expect(poll.sent[1]!.params).toEqual({ user_id: '7', auth_token: 'tok' });
    expect(poll.sent[2]!.params).toMatchObject({ source: 'betting', what: QUERY.what, where: QUERY.where, subscribe: true });
    await vi.advanceTimersByTimeAsync(1000);
    expect(poll.commands()).toEqual(['request_session', 'restore_login', 'get', 'whats_up', 'whats_up',
      'request_session', 'restore_login', 'get']);
    expect(store.getState().live.subs[KEY]).toMatchObject({ status: 'ready', subid: 'S1' });
    task.cancel();
  });

  it('pings the socket every 10 s, merges its pushes and reconnects at once when it closes', async () => {
    const sockets: FakeConnection[] = [];
    const deps: LiveDeps = {
      openSocket: vi.fn(async () => {
        const s = new FakeConnection('socket');
        sockets.push(s);
        return s;
      }),
      openPoll: vi.fn(),
    };
    const { store, task } = start(deps);
    store.dispatch(liveActions.subscribeRequested({ key: KEY, query: QUERY }));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().live.connection).toBe('open');
    await vi.advanceTimersByTimeAsync(PING_MS * 2);
    expect(sockets[0]!.commands()).toEqual(['request_session', 'get', 'ping', 'ping']);
    sockets[0]!.emit({ type: 'push', data: { S1: { sport: { '1': { id: 1 } } } } });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().live.subs[KEY]!.data).toEqual({ sport: { '1': { id: 1 } } });
    sockets[0]!.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(deps.openSocket).toHaveBeenCalledTimes(2);
    expect(sockets[1]!.commands()).toEqual(['request_session', 'get']);
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sockets[1]!.commands()).toContain('restore_login');
    expect(deps.openPoll).not.toHaveBeenCalled();
    task.cancel();
  });
});

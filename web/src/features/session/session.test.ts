import { generateKeyPairSync } from 'node:crypto';
import { JSEncrypt } from 'jsencrypt';
import type { Action } from '@reduxjs/toolkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport, setUserToken } from '../../api/transport';
import { PAIRS, mockApi, ok, refuse } from '../../test/apiMock';
import { startSagaWithState } from '../../test/runSaga';
import { settle, until } from '../../test/settle';
import { uiActions } from '../shell/uiSlice';
import reducer, { sessionActions } from './sessionSlice';
import {
  PARTNER_LIFETIME_MS, REGISTER_RELOAD_MS, RENEW_AHEAD_MS, browser, expiredFlow, fragmentActions, loginFlow, logoutFlow,
  partnerAuth, popupRequestFlow, reloginFlow, reloginRequested, renewLoop,
} from './sagas';
import { AUTH_KEY, SESSION_KEY, restoreSession, saveSession } from './storage';
import { LOGGED_IN, LOGGED_OUT, type AuthData } from './types';

const NOW = 1_700_000_000_000;
const auth = (over: Partial<AuthData> = {}): AuthData => ({
  auth_token: 'tok', user_id: 7, username: 'demo', expires: NOW + 600_000, never_expires: false, ...over,
});
const { publicKey, privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
  setUserToken(null);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('session restore rules', () => {
  const store = (a: unknown, session: string | null) => {
    localStorage.setItem(AUTH_KEY, JSON.stringify(a));
    if (session !== null) localStorage.setItem(SESSION_KEY, session);
  };

  it('accepts a complete, unexpired session', () => {
    store(auth(), 'sess');
    expect(restoreSession(NOW)).toEqual({ auth: auth(), session: 'sess' });
    expect(localStorage.getItem(AUTH_KEY)).not.toBeNull();
  });

  it.each([
    ['no auth token', { ...auth(), auth_token: '' }, 'sess'],
    ['no user id', { ...auth(), user_id: undefined }, 'sess'],
    ['no session token', auth(), null],
    ['no expiry', { ...auth(), expires: undefined }, 'sess'],
    ['a past expiry', auth({ expires: NOW - 1 }), 'sess'],
    ['an expiry of now', auth({ expires: NOW }), 'sess'],
  ])('deletes both items with %s', (_name, a, session) => {
    store(a, session);
    expect(restoreSession(NOW)).toBeNull();
    expect(localStorage.getItem(AUTH_KEY)).toBeNull();
    expect(localStorage.getItem(SESSION_KEY)).toBeNull();
  });

  it('deletes unreadable auth data', () => {
    localStorage.setItem(AUTH_KEY, '{not json');
    localStorage.setItem(SESSION_KEY, 'sess');
    expect(restoreSession(NOW)).toBeNull();
    expect(localStorage.getItem(SESSION_KEY)).toBeNull();
  });

  it('logs a partner in from AuthToken and UserId for one hour', () => {
    expect(partnerAuth('?AuthToken=abc&UserId=42', NOW)).toEqual({
      auth_token: 'abc', user_id: '42', username: '', expires: NOW + PARTNER_LIFETIME_MS, never_expires: false,
    });
    expect(PARTNER_LIFETIME_MS).toBe(3_600_000);
    expect(partnerAuth('?AuthToken=abc', NOW)).toBeNull();
  });
});

describe('renewal', () => {
  it('renews 5 s before expiry, stores the new expiry, and goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(NOW);
    const initial = reducer(undefined, sessionActions.loggedIn({ auth: auth({ expires: NOW + 60_000 }), session: 'sess' }));
    saveSession(initial.auth!, 'sess');
    const api = mockApi({ 'user/renewsession': () => ok({ expires: Date.now() + 60_000 }) });
    // The state follows what the saga dispatches, through the real reducer.
    const run = startSagaWithState(
      (dispatched: Action[]) => ({ session: dispatched.reduce((st, a) => reducer(st, a as never), initial) }), renewLoop);
    const renewed = () => run.dispatched.filter((a) => a.type === sessionActions.renewed.type);

    await vi.advanceTimersByTimeAsync(60_000 - RENEW_AHEAD_MS - 1);
    await settle();
    expect(api.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => renewed().length === 1, 'first renewal');
    expect(api.calls).toHaveLength(1);
    const newExpiry = NOW + 55_000 + 60_000;
    expect(renewed()[0]).toEqual(sessionActions.renewed(newExpiry));
    expect(JSON.parse(localStorage.getItem(AUTH_KEY)!).expires).toBe(newExpiry);

    await vi.advanceTimersByTimeAsync(60_000 - RENEW_AHEAD_MS - 1);
    await settle();
    expect(api.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => renewed().length === 2, 'second renewal');
    run.task.cancel();
  });

  it('does not renew a never-expiring session', async () => {
    const run = startSagaWithState(() => ({ session: { auth: auth({ never_expires: true }) } }), renewLoop);
    await run.task.toPromise();
    expect(run.dispatched).toEqual([]);
  });
});

describe('login saga', () => {
  const state = { session: { serverConfig: { public_key: publicKey } } };
  const request = { username: 'demo', password: 'demo1234', validateCode: '1234', uid: 'U'.repeat(16), remember: true };

  it('sends the RSA-encrypted password and the captcha, stores the session and remembers the name', async () => {
    const api = mockApi({
      'default/login': () => ok({ auth_token: 'A', user_id: 7, username: 'demo', expires: Date.now() + 600_000, never_expires: false, session: 'S' }),
    });
    const run = startSagaWithState(() => state, loginFlow, sessionActions.loginRequested(request));
    await run.task.toPromise();
    const { params } = api.calls[0]!;
    expect(params).toMatchObject({ username: 'demo', validateCode: '1234', type: 1, uid: 'U'.repeat(16) });
    const rsa = new JSEncrypt();
    rsa.setPrivateKey(privateKey);
    expect(rsa.decrypt(params.loginpass as string)).toBe('demo1234');
    expect(run.types()).toEqual([sessionActions.loggedIn.type, uiActions.popupClosed.type]);
    expect(localStorage.getItem(SESSION_KEY)).toBe('S');
    expect(JSON.parse(localStorage.getItem(AUTH_KEY)!)).toMatchObject({ auth_token: 'A', user_id: 7 });
    expect(localStorage.getItem('username')).toBe('demo');
  });

  it('refreshes the captcha after a failure and shows the catalogue message', async () => {
    mockApi({ 'default/login': () => refuse(1003, 'Wrong password') });
    const run = startSagaWithState(() => state, loginFlow, sessionActions.loginRequested({ ...request, remember: false }));
    await run.task.toPromise();
    expect(run.dispatched).toEqual([sessionActions.loginFailed({ status: 1003, msg: 'Wrong password', key: 'error.1003', args: [], httpStatus: 200 })]);
    const s = reducer(undefined, run.dispatched[0] as ReturnType<typeof sessionActions.loginFailed>);
    expect(s).toMatchObject({ loginState: LOGGED_OUT, captchaNonce: 1 });
  });

  it('asks for the safety verification on -10010, then logs in again with the same credentials', async () => {
    mockApi({ 'default/login': () => refuse(-10010, 'verify', { username: 'demo', channels: ['phone', 'email'], phone: '138****0000', email: 'd***@x.com' }) });
    const run = startSagaWithState(() => state, loginFlow, sessionActions.loginRequested(request));
    await run.task.toPromise();
    expect(run.dispatched).toEqual([
      sessionActions.safetyRequired({ username: 'demo', channels: ['phone', 'email'], phone: '138****0000', email: 'd***@x.com' }),
      uiActions.popupOpened({ name: 'safetyConfirm' }),
    ]);
    const again = startSagaWithState(() => state, reloginFlow, reloginRequested({ validateCode: '9999', uid: 'V'.repeat(16) }));
    await again.task.toPromise();
    expect(again.dispatched).toEqual([sessionActions.loginRequested({ ...request, validateCode: '9999', uid: 'V'.repeat(16) })]);
  });
});

describe('logout and expiry', () => {
  it('resets after a successful logout call', async () => {
    saveSession(auth(), 'S');
    const api = mockApi({ logout: () => ok(null) });
    const run = startSagaWithState(() => ({}), logoutFlow);
    await expect(run.task.toPromise()).resolves.toBe(true);
    expect(api.calls[0]!.path).toBe('logout');
    expect(run.types()).toContain(sessionActions.loggedOut.type);
    expect(localStorage.getItem(AUTH_KEY)).toBeNull();
  });

  it('stays logged in when the logout call fails on the network', async () => {
    saveSession(auth(), 'S');
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('offline')));
    const run = startSagaWithState(() => ({}), logoutFlow);
    await expect(run.task.toPromise()).resolves.toBe(false);
    expect(run.types()).toEqual([uiActions.notified.type]);
    expect(localStorage.getItem(AUTH_KEY)).not.toBeNull();
  });

  it('-601: server logout when a session exists, clear, go home, warn', async () => {
    saveSession(auth(), 'S');
    window.history.pushState(null, '', '/setting/changenickname');
    const api = mockApi({ logout: () => refuse(-601) });
    const run = startSagaWithState(() => ({}), expiredFlow);
    await run.task.toPromise();
    expect(api.calls.map((c) => c.path)).toEqual(['logout']);
    expect(localStorage.getItem(AUTH_KEY)).toBeNull();
    expect(localStorage.getItem(SESSION_KEY)).toBeNull();
    expect(window.location.pathname).toBe('/');
    expect(run.dispatched).toEqual([
      sessionActions.loggedOut(),
      uiActions.notified({ kind: 'warning', key: 'error.session_expired' }),
    ]);
  });

  it('-601 without a stored session makes no server call', async () => {
    const api = mockApi({});
    await startSagaWithState(() => ({}), expiredFlow).task.toPromise();
    expect(api.calls).toHaveLength(0);
  });
});

describe('popup requests and fragment actions', () => {
  it("tells a member to log out before registering, and reloads after 1.5 s", async () => {
    vi.useFakeTimers();
    const reload = vi.spyOn(browser, 'reload').mockImplementation(() => {});
    const run = startSagaWithState(() => ({ session: { loginState: LOGGED_IN } }), popupRequestFlow,
      uiActions.popupRequested({ name: 'register', step: 0 }));
    expect(run.dispatched).toEqual([uiActions.notified({ kind: 'warning', key: 'register.logout_first' })]);
    await vi.advanceTimersByTimeAsync(REGISTER_RELOAD_MS - 1);
    expect(reload).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('reloads when a member asks for the login popup, opens it for a guest', () => {
    const reload = vi.spyOn(browser, 'reload').mockImplementation(() => {});
    startSagaWithState(() => ({ session: { loginState: LOGGED_IN } }), popupRequestFlow, uiActions.popupRequested({ name: 'login' }));
    expect(reload).toHaveBeenCalledTimes(1);
    const guest = startSagaWithState(() => ({ session: { loginState: LOGGED_OUT } }), popupRequestFlow, uiActions.popupRequested({ name: 'login' }));
    expect(guest.dispatched).toEqual([uiActions.popupOpened({ name: 'login' })]);
  });

  it.each([
    ['#action=login', uiActions.popupRequested({ name: 'login' })],
    ['#action=register', uiActions.popupRequested({ name: 'register', step: 0 })],
    ['#action=reset_password', uiActions.popupOpened({ name: 'forgot' })],
    ['#action=verify&status=1', uiActions.emailConfirmShown(true)],
    ['#action=verify&status=fail', uiActions.emailConfirmShown(false)],
  ])('%s', (hash, expected) => {
    vi.spyOn(browser, 'hash').mockReturnValue(hash);
    const clear = vi.spyOn(browser, 'clearHash').mockImplementation(() => {});
    const run = startSagaWithState(() => ({}), fragmentActions);
    expect(run.dispatched).toEqual([expected]);
    expect(clear).toHaveBeenCalled();
  });
});

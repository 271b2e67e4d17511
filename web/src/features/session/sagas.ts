/**
 * Session side effects: restore or partner login on boot, login (RSA password,
 * -10010 safety verification), renewal 5 s before expiry, logout, the -601
 * forced logout, popup requests and the address-fragment actions.
 */
import { eventChannel, type EventChannel, type SagaIterator } from 'redux-saga';
import { call, cancel, delay, fork, put, select, take, takeEvery, takeLatest } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { Task } from 'redux-saga';
import { ApiError, apiGet, apiPost, configureTransport, setUserToken, toErrorInfo } from '../../api';
import { navigate } from '../../app/router';
import { configActions } from '../config/configSlice';
import { uiActions, type PopupName } from '../shell/uiSlice';
import { encryptPassword } from './rsa';
import { selectAuth, selectLoggedIn, selectServerConfig } from './selectors';
import { sessionActions, type LoginRequest } from './sessionSlice';
import { SESSION_KEY, clearSession, rememberUsername, restoreSession, saveSession } from './storage';
import type { AuthData, CountryCode, LoginAnswer, SafetyInfo, ServerConfig, UserInfo } from './types';

/** Renewal lead time (spec 001 section 4). */
export const RENEW_AHEAD_MS = 5000;
/** Retry pause when a renewal call fails for a network reason. */
export const RENEW_RETRY_MS = 1000;
/** Partner (iframe) mode auth lifetime (spec 001 section 6). */
export const PARTNER_LIFETIME_MS = 3_600_000;
/** Reload delay after 'Please log out and register again!' (spec 001 section 9). */
export const REGISTER_RELOAD_MS = 1500;
export const SAFETY_REQUIRED = -10010;

/** Page-level effects kept behind an object so tests can replace them. */
export const browser = {
  reload: () => window.location.reload(),
  search: () => window.location.search,
  hash: () => window.location.hash,
  clearHash: () => window.history.replaceState(null, '', window.location.pathname + window.location.search),
};

function readSessionToken(): string | null {
  try {
    return localStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
}

/** Stores the session, sends UserToken from now on, and marks the member logged in. */
export function* establish(auth: AuthData, session: string): SagaIterator {
  yield call(saveSession, auth, session);
  yield call(setUserToken, auth.auth_token);
  yield put(sessionActions.loggedIn({ auth, session }));
}

/** A login or registration answer. */
export function* establishFromAnswer(data: LoginAnswer): SagaIterator {
  const { session, ...rest } = data;
  const auth: AuthData = {
    auth_token: rest.auth_token,
    user_id: rest.user_id,
    username: rest.username,
    expires: rest.expires,
    never_expires: rest.never_expires === true,
  };
  yield call(establish, auth, session ?? rest.auth_token);
}

function* resetSession(): SagaIterator {
  yield call(clearSession);
  yield call(setUserToken, null);
  yield put(sessionActions.loggedOut());
}

/** Partner mode: ?AuthToken=...&UserId=... logs the user in for one hour. */
export function partnerAuth(search: string, now = Date.now()): AuthData | null {
  const params = new URLSearchParams(search);
  const token = params.get('AuthToken');
  const userId = params.get('UserId');
  if (!token || !userId) return null;
  return { auth_token: token, user_id: userId, username: '', expires: now + PARTNER_LIFETIME_MS, never_expires: false };
}

export function* getServerConfig(): SagaIterator<ServerConfig> {
  const cached: ServerConfig | null = yield select(selectServerConfig);
  if (cached) return cached;
  const config: ServerConfig = yield call(apiGet, 'getconfig');
  yield put(sessionActions.serverConfigLoaded(config));
  return config;
}

function* loadServerData(): SagaIterator {
  try {
    yield call(getServerConfig);
  } catch {
    /* the login and registration forms fetch it again when they need it */
  }
  try {
    const countries: CountryCode[] = yield call(apiGet, 'getmobilecountrycode');
    if (Array.isArray(countries)) yield put(sessionActions.countriesLoaded(countries));
  } catch {
    /* the phone forms fall back to the market's default code */
  }
}

export function* bootSession(): SagaIterator {
  const partner: AuthData | null = yield call(partnerAuth, browser.search());
  if (partner) {
    yield call(establish, partner, partner.auth_token);
  } else {
    const restored: ReturnType<typeof restoreSession> = yield call(restoreSession);
    if (restored) yield call(establish, restored.auth, restored.session);
  }
  yield fork(loadServerData);
  yield call(fragmentActions);
}

/** -10010 data, with what the client knows when a field is missing. */
function safetyInfo(data: unknown, username: string): SafetyInfo {
  const d = (data ?? {}) as Partial<SafetyInfo>;
  const channels = Array.isArray(d.channels) ? d.channels.filter((c) => c === 'phone' || c === 'email') : [];
  return { username: d.username || username, channels, phone: d.phone, email: d.email };
}

/** Credentials of a login that met -10010, for the retry after the safety check (memory only). */
let pendingLogin: Omit<LoginRequest, 'validateCode' | 'uid'> | null = null;

export function* loginFlow(action: PayloadAction<LoginRequest>): SagaIterator {
  const { username, password, validateCode, uid, remember } = action.payload;
  try {
    const config: ServerConfig = yield call(getServerConfig);
    const loginpass: string = yield call(encryptPassword, password, config.public_key);
    const data: LoginAnswer = yield call(apiPost, 'default/login', { username, loginpass, validateCode, type: 1, uid });
    pendingLogin = null;
    yield call(rememberUsername, remember ? username : null);
    yield call(establishFromAnswer, data);
    yield put(uiActions.popupClosed());
  } catch (err) {
    if (err instanceof ApiError && err.status === SAFETY_REQUIRED) {
      pendingLogin = { username, password, remember };
      yield put(sessionActions.safetyRequired(safetyInfo(err.data, username)));
      yield put(uiActions.popupOpened({ name: 'safetyConfirm' }));
      return;
    }
    yield put(sessionActions.loginFailed(toErrorInfo(err)));
  }
}

/** 'Log in again' after the safety verification: the same credentials, a new captcha. */
export function* reloginFlow(action: PayloadAction<{ validateCode: string; uid: string }>): SagaIterator {
  if (!pendingLogin) {
    yield put(uiActions.popupOpened({ name: 'login' }));
    return;
  }
  yield put(sessionActions.loginRequested({ ...pendingLogin, ...action.payload }));
}

export function* fetchProfile(): SagaIterator {
  try {
    const info: UserInfo = yield call(apiPost, 'user/userinfo');
    yield put(sessionActions.profileLoaded(info));
  } catch {
    /* the menu shows the username until the next try */
  }
}

/** Renews the session RENEW_AHEAD_MS before it expires, for as long as it lives. */
export function* renewLoop(): SagaIterator {
  for (;;) {
    const auth: AuthData | null = yield select(selectAuth);
    if (!auth || auth.never_expires) return;
    yield delay(Math.max(0, auth.expires - Date.now() - RENEW_AHEAD_MS));
    try {
      const data: { expires: number } = yield call(apiPost, 'user/renewsession');
      yield put(sessionActions.renewed(data.expires));
      const session: string | null = yield call(readSessionToken);
      yield call(saveSession, { ...auth, expires: data.expires }, session ?? auth.auth_token);
    } catch (err) {
      if (err instanceof ApiError && err.status > 0) return; // refused: the -601 flow or the next call decides
      if (err instanceof ApiError && err.status === -601) return;
      if (Date.now() >= auth.expires) return;
      yield delay(RENEW_RETRY_MS);
    }
  }
}

function* memberTasks(): SagaIterator {
  yield fork(renewLoop);
  yield fork(fetchProfile);
  yield takeLatest(sessionActions.profileRequested.type, fetchProfile);
}

/** Logout: the call, then the reset when it succeeded (or the server already forgot us). */
export function* logoutFlow(): SagaIterator<boolean> {
  try {
    yield call(apiPost, 'logout', {}, { skipExpiryHook: true });
  } catch (err) {
    const gone = err instanceof ApiError && (err.status === -601 || err.status === 12);
    if (!gone) {
      const info = toErrorInfo(err);
      yield put(uiActions.notified({ kind: 'warning', key: info.key, args: info.args, text: info.msg }));
      return false;
    }
  }
  yield call(resetSession);
  yield put(uiActions.drawerToggled(false));
  return true;
}

/** -601: server logout when a session exists, clear everything, go home, say why. */
export function* expiredFlow(): SagaIterator {
  if (readSessionToken()) {
    try {
      yield call(apiPost, 'logout', {}, { skipExpiryHook: true });
    } catch {
      /* the session is gone either way */
    }
  }
  yield call(resetSession);
  yield call(navigate, '/');
  yield put(uiActions.notified({ kind: 'warning', key: 'error.session_expired' }));
}

function* memberLifecycle(): SagaIterator {
  for (;;) {
    yield take(sessionActions.loggedIn.type);
    const tasks: Task = yield fork(memberTasks);
    for (;;) {
      const end: PayloadAction = yield take([sessionActions.logoutRequested.type, sessionActions.expired.type]);
      if (end.type === sessionActions.expired.type) {
        yield cancel(tasks);
        yield call(expiredFlow);
        break;
      }
      const done: boolean = yield call(logoutFlow);
      if (done) {
        yield cancel(tasks);
        break;
      }
    }
  }
}

/** The transport's -601 hook, as a channel the lifecycle saga listens to. */
function expiryChannel(): EventChannel<true> {
  return eventChannel((emit) => {
    configureTransport({ onExpired: () => emit(true) });
    return () => configureTransport({ onExpired: () => {} });
  });
}

function* watchExpiry(): SagaIterator {
  const channel: EventChannel<true> = yield call(expiryChannel);
  for (;;) {
    yield take(channel);
    yield put(sessionActions.expired());
  }
}

/** Login while logged in reloads; registration says log out first and reloads after 1.5 s. */
export function* popupRequestFlow(action: PayloadAction<{ name: PopupName; step?: 0 | 1 | 2 }>): SagaIterator {
  const loggedIn: boolean = yield select(selectLoggedIn);
  const { name } = action.payload;
  if (loggedIn && name === 'login') {
    yield call([browser, browser.reload]);
    return;
  }
  if (loggedIn && name === 'register') {
    yield put(uiActions.notified({ kind: 'warning', key: 'register.logout_first' }));
    yield delay(REGISTER_RELOAD_MS);
    yield call([browser, browser.reload]);
    return;
  }
  yield put(uiActions.popupOpened(action.payload));
}

const REDIRECTS: Record<string, string> = { casino: '/casino', livedealer: '/live-casino' };

/** Address-fragment entry (spec 001 section 2.2): #action=register|login|reset_password|verify, redirects. */
export function* fragmentActions(): SagaIterator {
  const hash: string = browser.hash();
  if (!hash || hash.length < 2) return;
  const params = new URLSearchParams(hash.slice(1));
  const action = params.get('action');
  let handled = true;
  if (action === 'register') yield put(uiActions.popupRequested({ name: 'register', step: 0 }));
  else if (action === 'login') yield put(uiActions.popupRequested({ name: 'login' }));
  else if (action === 'reset_password') yield put(uiActions.popupOpened({ name: 'forgot' }));
  else if (action === 'verify') {
    // The confirmation link carries its outcome (docs: no verify call in the contract yet).
    const status = params.get('status') ?? params.get('result') ?? '';
    yield put(uiActions.emailConfirmShown(['0', '1', 'ok', 'success', 'true'].includes(status.toLowerCase())));
  } else if (params.has('sport')) {
    const live = params.get('type') === '1';
    const game = params.get('game');
    yield call(navigate, `/${live ? 'live' : 'prematch'}${game ? `/game/${game}` : ''}`);
  } else {
    const key = Object.keys(REDIRECTS).find((k) => params.has(k));
    if (key) yield call(navigate, REDIRECTS[key]!);
    else handled = false;
  }
  if (handled) yield call([browser, browser.clearHash]);
}

export const sessionRelogin = { type: 'session/reloginRequested' } as const;
export const reloginRequested = (payload: { validateCode: string; uid: string }) => ({ ...sessionRelogin, payload });

export function* sessionSaga(): SagaIterator {
  yield fork(watchExpiry);
  yield fork(memberLifecycle);
  yield takeLatest(sessionActions.loginRequested.type, loginFlow);
  yield takeLatest(sessionRelogin.type, reloginFlow);
  yield takeEvery(uiActions.popupRequested.type, popupRequestFlow);
  yield take(configActions.loaded.type);
  yield call(bootSession);
}

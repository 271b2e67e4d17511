/**
 * The live-data connection (spec 000 sections 4, 7.3, 9): a WebSocket to /swarm with up
 * to 5 attempts (2000 ms x attempt between them, 5000 ms open timeout), then HTTP
 * long-poll (`whats_up` every 500 ms); while polling, the WebSocket is tried again every
 * minute and, once it opens, replaces the poll. Each connection runs sessions: request_session,
 * restore_login when a member is in, then every subscription again. Code 5 (session
 * lost) starts a new session on the same connection.
 */
import { buffers, eventChannel, type EventChannel, type SagaIterator, type Task } from 'redux-saga';
import { call, cancel, delay, fork, put, race, select, take, takeEvery } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import {
  SWARM_SOURCE, isSessionLost, openPoll, openSocket, type ConnectionEvent, type PushData, type SwarmConnection,
} from '../../api/swarm';
import type { RootState } from '../../app/store';
import { i18nActions } from '../i18n/i18nSlice';
import { sessionActions } from '../session/sessionSlice';
import { clearActiveConnection, setActiveConnection } from './connection';
import { liveActions, type Subscription } from './liveSlice';

export const MAX_SOCKET_ATTEMPTS = 5;
export const RETRY_STEP_MS = 2000;
/** After falling back to long-poll, the WebSocket is tried again this often (a proxy or network may let it through later). */
export const SOCKET_RETRY_AFTER_POLL_MS = 60_000;
export const PING_MS = 10_000;
export const POLL_MS = 500;
/** A subscription no component uses any more is kept this long (a remount reuses it). */
export const LINGER_MS = 1000;
/** Failed polls in a row before the connection shows as down. */
const POLL_FAILURES_DOWN = 3;

export interface LiveDeps {
  openSocket: () => Promise<SwarmConnection>;
  openPoll: () => SwarmConnection;
}

export const defaultDeps: LiveDeps = {
  openSocket: () => (typeof WebSocket === 'undefined' ? Promise.reject(new Error('no WebSocket')) : openSocket()),
  openPoll,
};

/** `conn.request` as a saga call. */
const send = (conn: SwarmConnection, command: string, params?: Record<string, unknown>) =>
  call([conn, conn.request], command, params);

function connectionEvents(conn: SwarmConnection): EventChannel<ConnectionEvent> {
  return eventChannel((emit) => conn.listen(emit), buffers.expanding<ConnectionEvent>(16));
}

/** A failed command: code 5 ends the session, anything else is left to the caller. */
function* onFailure(conn: SwarmConnection, err: unknown): SagaIterator<boolean> {
  if (isSessionLost(err)) {
    yield call([conn, conn.signalLost]);
    return true;
  }
  return false;
}

export function* subscribeOne(conn: SwarmConnection, key: string): SagaIterator {
  const sub: Subscription | undefined = yield select((s: RootState) => s.live.subs[key]);
  if (!sub) return;
  yield put(liveActions.subscribeSent({ key }));
  try {
    const answer: { subid: string; data: unknown } = yield send(conn, 'get', {
      source: 'betting', what: sub.query.what, where: sub.query.where ?? {}, subscribe: true,
    });
    yield put(liveActions.subscribed({ key, subid: String(answer.subid), data: answer.data }));
  } catch (err) {
    if (!(yield call(onFailure, conn, err))) yield put(liveActions.subscribeFailed({ key }));
  }
}

function* quietly(conn: SwarmConnection, command: string, params?: Record<string, unknown>): SagaIterator {
  try {
    yield send(conn, command, params);
  } catch (err) {
    yield call(onFailure, conn, err); // 12 on restore_login: the token is not live any more
  }
}

/** Subscriptions, login changes and keep-alive while a session is up. */
function* sessionWorkers(conn: SwarmConnection): SagaIterator {
  const subs: Record<string, Subscription> = yield select((s: RootState) => s.live.subs);
  for (const [key, sub] of Object.entries(subs)) if (sub.refs > 0) yield fork(subscribeOne, conn, key);
  yield takeEvery(liveActions.subscribeRequested.type, function* (action: PayloadAction<{ key: string }>) {
    const sub: Subscription | undefined = yield select((s: RootState) => s.live.subs[action.payload.key]);
    if (sub?.status === 'new' || sub?.status === 'error') yield call(subscribeOne, conn, action.payload.key);
  });
  yield takeEvery(liveActions.removed.type, function* (action: PayloadAction<{ subid: string | null }>) {
    if (action.payload.subid) yield call(quietly, conn, 'unsubscribe', { subid: action.payload.subid });
  });
  yield takeEvery(sessionActions.loggedIn.type, function* (action: ReturnType<typeof sessionActions.loggedIn>) {
    const { user_id, auth_token } = action.payload.auth;
    yield call(quietly, conn, 'restore_login', { user_id, auth_token });
  });
  yield takeEvery(sessionActions.loggedOut.type, function* () {
    yield call(quietly, conn, 'logout');
  });
  yield fork(conn.kind === 'socket' ? pingLoop : pollLoop, conn);
}

export function* pingLoop(conn: SwarmConnection): SagaIterator {
  for (;;) {
    yield delay(PING_MS);
    try {
      yield send(conn, 'ping');
    } catch (err) {
      if (!(yield call(onFailure, conn, err))) yield call([conn, conn.close]);
    }
  }
}

/**
 * Long-poll: every 500 ms `whats_up`, whose `data` has the shape of a push's
 * (`{subid: diff}`, `{}` when nothing changed), applied like one.
 */
export function* pollLoop(conn: SwarmConnection): SagaIterator {
  let failures = 0;
  for (;;) {
    yield delay(POLL_MS);
    try {
      const diffs: PushData = yield send(conn, 'whats_up');
      if (failures >= POLL_FAILURES_DOWN) yield put(liveActions.connectionChanged({ state: 'polling' }));
      failures = 0;
      if (diffs && typeof diffs === 'object' && !Array.isArray(diffs) && Object.keys(diffs).length > 0) {
        yield put(liveActions.pushed(diffs));
      }
    } catch (err) {
      if (yield call(onFailure, conn, err)) return;
      failures += 1;
      if (failures === POLL_FAILURES_DOWN) yield put(liveActions.connectionChanged({ state: 'down' }));
    }
  }
}

function* establishSession(conn: SwarmConnection): SagaIterator {
  yield put(liveActions.sessionReset());
  const state: RootState = yield select();
  yield send(conn, 'request_session', {
    language: state.i18n.lang ?? state.config.conf?.default_language ?? 'eng',
    site_id: state.config.conf?.site_id,
    source: SWARM_SOURCE,
  });
  const auth = state.session.auth;
  if (auth) {
    try {
      yield send(conn, 'restore_login', { user_id: auth.user_id, auth_token: auth.auth_token });
    } catch (err) {
      if (isSessionLost(err)) throw err;
    }
  }
}

/** One session on `conn`: 'lost' (code 5, start another), 'closed' or 'failed'. */
export function* runSession(conn: SwarmConnection): SagaIterator<'lost' | 'closed' | 'failed'> {
  const events: EventChannel<ConnectionEvent> = yield call(connectionEvents, conn);
  try {
    try {
      yield call(establishSession, conn);
    } catch (err) {
      return isSessionLost(err) ? 'lost' : 'failed';
    }
    yield put(liveActions.connectionChanged({ state: conn.kind === 'socket' ? 'open' : 'polling' }));
    yield call(setActiveConnection, conn);
    const workers: Task = yield fork(sessionWorkers, conn);
    try {
      for (;;) {
        const event: ConnectionEvent = yield take(events);
        if (event.type === 'push') yield put(liveActions.pushed(event.data));
        else return event.type;
      }
    } finally {
      yield cancel(workers);
      yield call(clearActiveConnection, conn);
    }
  } finally {
    events.close();
  }
}

/** Sessions on one socket until it closes. */
function* runSocket(conn: SwarmConnection): SagaIterator {
  for (;;) {
    const outcome: 'lost' | 'closed' | 'failed' = yield call(runSession, conn);
    if (outcome !== 'lost') break;
  }
  yield call([conn, conn.close]);
}

/** Long-poll for good: a failed session start is retried every 2000 ms. */
function* runPolling(conn: SwarmConnection): SagaIterator {
  for (;;) {
    const outcome: 'lost' | 'closed' | 'failed' = yield call(runSession, conn);
    if (outcome !== 'lost') {
      yield put(liveActions.connectionChanged({ state: 'down' }));
      yield delay(RETRY_STEP_MS);
    }
  }
}

/** While polling: a WebSocket opened in the background every SOCKET_RETRY_AFTER_POLL_MS; the first that opens. */
export function* probeSocket(deps: LiveDeps): SagaIterator<SwarmConnection> {
  for (;;) {
    yield delay(SOCKET_RETRY_AFTER_POLL_MS);
    try {
      const conn: SwarmConnection = yield call(deps.openSocket);
      return conn;
    } catch {
      // still refused: keep polling
    }
  }
}

/** WebSocket sessions as long as one opens (retries 2000 ms x attempt); after the 5th failure in a row, undefined. */
function* socketRounds(deps: LiveDeps, first?: SwarmConnection): SagaIterator {
  let attempt = 0;
  let ready = first;
  for (;;) {
    if (ready) {
      const conn = ready;
      ready = undefined;
      attempt = 0;
      yield call(runSocket, conn);
      continue;
    }
    attempt += 1;
    yield put(liveActions.connectionChanged({ state: 'connecting', attempt }));
    try {
      ready = yield call(deps.openSocket);
    } catch {
      if (attempt >= MAX_SOCKET_ATTEMPTS) return;
      yield delay(RETRY_STEP_MS * attempt);
    }
  }
}

/** WebSocket with retries, then long-poll after the 5th failed attempt in a row, and back to the socket once it opens. */
export function* connectionLoop(deps: LiveDeps): SagaIterator {
  let socket: SwarmConnection | undefined;
  for (;;) {
    yield call(socketRounds, deps, socket);
    yield put(liveActions.connectionChanged({ state: 'polling' }));
    const poll = deps.openPoll();
    const winner: { socket?: SwarmConnection } = yield race({ polling: call(runPolling, poll), socket: call(probeSocket, deps) });
    yield call([poll, poll.close]);
    socket = winner.socket;
  }
}

/** Drops a subscription nobody has used for LINGER_MS. */
function* linger(action: PayloadAction<{ key: string }>): SagaIterator {
  yield delay(LINGER_MS);
  const sub: Subscription | undefined = yield select((s: RootState) => s.live.subs[action.payload.key]);
  if (sub && sub.refs === 0) yield put(liveActions.removed({ key: action.payload.key, subid: sub.subid }));
}

export function* liveSaga(deps: LiveDeps = defaultDeps): SagaIterator {
  yield take(i18nActions.loaded.type); // the session needs the language and the site id
  yield takeEvery(liveActions.unsubscribeRequested.type, linger);
  yield call(connectionLoop, deps);
}

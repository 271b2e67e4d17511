/**
 * Realtime notifications (spec 000 section 4; docs/protocol.md "Realtime (/ws)"): the
 * socket sends init (the answer carries the client_id), p every 10 s, and after login
 * the client_id is bound to the member with POST user/bindws. Winning tips (1000-1005,
 * 1010) become pop-overs; a 1004 win refreshes the balance; a 1002 tip about a bet
 * (counter offer, support's answer, auto cash-out) reloads the bet history. A 1020 reality
 * check (the session's time, stakes and net result) opens its modal instead of a pop-over.
 */
import { eventChannel, buffers, type EventChannel, type SagaIterator, type Task } from 'redux-saga';
import { call, cancel, delay, fork, put, select, spawn, take, takeEvery, takeLatest } from 'redux-saga/effects';
import { apiPost } from '../../api';
import { openRealtime, type RealtimeEvent, type RealtimeSocket } from '../../api/realtime';
import type { RootState } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { configActions } from '../config/configSlice';
import { historyActions } from '../history/historySlice';
import { sessionActions } from '../session/sessionSlice';
import {
  REALITY_CHECK_TIP, TEXT_TIP, TIP_TYPES, WIN_TIP, isBetSubject, realtimeActions, type BetSubject,
} from './realtimeSlice';

export const REALTIME_PING_MS = 10_000;
/** Reconnect pause: this times the attempt, at most RECONNECT_MAX_MS. */
export const RECONNECT_STEP_MS = 2000;
export const RECONNECT_MAX_MS = 30_000;
/** How long a tip pop-over stays unless closed. */
export const TIP_MS = 10_000;

export interface RealtimeDeps {
  open: () => Promise<RealtimeSocket>;
  bind: (clientId: string) => Promise<unknown>;
}
export const defaultDeps: RealtimeDeps = {
  open: () => openRealtime(),
  bind: (clientId) => apiPost('user/bindws', { client_id: clientId }),
};

const socketEvents = (socket: RealtimeSocket): EventChannel<RealtimeEvent> =>
  eventChannel((emit) => socket.listen(emit), buffers.expanding<RealtimeEvent>(16));

function* pinger(socket: RealtimeSocket): SagaIterator {
  for (;;) {
    yield delay(REALTIME_PING_MS);
    yield call([socket, socket.send], { type: 'p' });
  }
}

/** Binds the client id when both it and a member are there (and not bound yet). */
export function* bindIfReady(deps: RealtimeDeps): SagaIterator {
  const { clientId, boundId } = (yield select((s: RootState) => s.realtime)) as RootState['realtime'];
  const loggedIn: boolean = yield select((s: RootState) => s.session.auth !== null);
  if (!clientId || !loggedIn || boundId === clientId) return;
  try {
    yield call(deps.bind, clientId);
    yield put(realtimeActions.bound(clientId));
  } catch {
    /* the next login or reconnect binds again */
  }
}

function* dismissLater(id: number): SagaIterator {
  yield delay(TIP_MS);
  yield put(realtimeActions.tipDismissed(id));
}

export function* handle(message: Record<string, unknown>): SagaIterator {
  const type = message.type;
  if ((type === 'init' || type === 'i') && typeof message.client_id === 'string') {
    yield put(realtimeActions.clientIdReceived(message.client_id));
    return;
  }
  const code = Number(type);
  const data = (message.data && typeof message.data === 'object' ? message.data : {}) as Record<string, unknown>;
  if (code === REALITY_CHECK_TIP) {
    // a modal the member answers (continue or log out; the modal reads the payload)
    yield put(realtimeActions.realityCheckReceived(data));
    return;
  }
  if (!TIP_TYPES.includes(code)) return;
  const betNews = code === TEXT_TIP && isBetSubject(data.subject) && data.id !== undefined && data.id !== null;
  // support's answer shows as an info or warning notice instead (spec 000 section 4)
  if (!(betNews && NOTICE_SUBJECTS.includes(String(data.subject)))) {
    const action = realtimeActions.tipReceived({ type: code, data });
    yield put(action);
    yield spawn(dismissLater, action.payload.id); // detached: handling the next message must not wait for it
  }
  if (code === WIN_TIP) yield put(balanceActions.refreshRequested());
  // these also wrote an inbox message: the header's unread count moves
  if (INBOX_TIPS.includes(code)) yield put(sessionActions.profileRequested());
  if (betNews) {
    yield put(realtimeActions.betNotified({
      subject: data.subject as BetSubject, id: String(data.id), ...(data.money !== undefined ? { money: String(data.money) } : {}),
    }));
  }
}

const NOTICE_SUBJECTS = ['super_bet_accepted', 'super_bet_declined'];
/** Tips whose event also wrote an inbox message (docs/content.md). */
const INBOX_TIPS = [1000, 1001, 1003, 1005];

/** Bet news: the bet history loads again; an auto cash-out or a support decision moved money. */
export function* onBetNotified(action: ReturnType<typeof realtimeActions.betNotified>): SagaIterator {
  yield put(historyActions.changed());
  if (action.payload.subject !== 'counter_offer') yield put(balanceActions.refreshRequested());
}

/** One socket until it closes. */
export function* runSocket(deps: RealtimeDeps, socket: RealtimeSocket): SagaIterator {
  const events: EventChannel<RealtimeEvent> = yield call(socketEvents, socket);
  const workers: Task[] = [];
  try {
    yield put(realtimeActions.connected(true));
    yield call([socket, socket.send], { type: 'init' });
    workers.push(yield fork(pinger, socket));
    workers.push(yield takeLatest([realtimeActions.clientIdReceived.type, sessionActions.loggedIn.type], bindIfReady, deps));
    for (;;) {
      const event: RealtimeEvent = yield take(events);
      if (event.type === 'closed') break;
      yield call(handle, event.data);
    }
  } finally {
    for (const w of workers) yield cancel(w);
    events.close();
    yield put(realtimeActions.connected(false));
  }
}

export function* connectLoop(deps: RealtimeDeps): SagaIterator {
  let attempt = 0;
  for (;;) {
    try {
      const socket: RealtimeSocket = yield call(deps.open);
      attempt = 0;
      yield call(runSocket, deps, socket);
    } catch {
      /* retried below */
    }
    attempt += 1;
    yield delay(Math.min(RECONNECT_MAX_MS, RECONNECT_STEP_MS * attempt));
  }
}

export function* realtimeSaga(deps: RealtimeDeps = defaultDeps): SagaIterator {
  yield takeEvery(realtimeActions.betNotified.type, onBetNotified);
  yield take(configActions.loaded.type);
  yield call(connectLoop, deps);
}

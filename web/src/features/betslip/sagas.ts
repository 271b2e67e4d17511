/**
 * Betslip side effects: placing (do_bet over the Swarm session, one submit at a time),
 * quick bets, Max (get_max_bet), the booking id, and the live prices of the picks.
 */
import { actionChannel, call, delay, fork, put, select, spawn, take, takeEvery, takeLatest, takeLeading } from 'redux-saga/effects';
import { buffers, type Channel, type SagaIterator } from 'redux-saga';
import type { PayloadAction } from '@reduxjs/toolkit';
import { NOT_LOGGED_IN, messageForCode } from '../../api/errors';
import { SWARM_SOURCE, SwarmError } from '../../api/swarm';
import type { RootState } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { swarmRequest } from '../live/connection';
import { liveActions, queryKey, type SwarmQuery } from '../live/liveSlice';
import { selectionsActions } from '../selections/selectionsSlice';
import { selectAuth, selectLoggedIn } from '../session/selectors';
import { uiActions } from '../shell/uiSlice';
import { betslipActions, type BetSuccess, type BetslipEvent, type BetslipState, type FeedEvent, type SlipMessage } from './betslipSlice';
import { MSG, SINGLE, SYSTEM, betterOdds, blockingMessage, sysBetValue } from './calc';
import { selectStakeBalance } from './selectors';

/** 'Bet accepted.' stays 5000 ms; the betslip closes 500 ms after the bet (spec 000 section 9). */
export const BET_ACCEPTED_MS = 5000;
export const CLOSE_AFTER_BET_MS = 500;
export const QUICK_BET_NOTICE_MS = 5000;
/** Quote refresh debounce: the picks' price subscription follows the slip after this pause. */
export const QUOTE_DEBOUNCE_MS = 300;
/** Codes of do_bet results with their own handling. */
export const ODDS_CHANGED = 1800;
export const INSUFFICIENT_BALANCE = 2400;

export interface BetslipDeps {
  request: <T>(command: string, params: Record<string, unknown>) => Promise<T>;
}
export const defaultDeps: BetslipDeps = { request: swarmRequest };

export interface DoBetAnswer {
  result: string | number;
  result_text?: string | null;
  details?: unknown;
}

export const selectSlip = (s: RootState) => s.betslip;

/** One pick: the agreed price, the banker flag, and the agreed line when the market has one. */
const pickParam = (e: BetslipEvent, price: number) => ({
  event_id: e.eventId, price, banker: e.banker, ...(e.initialBase !== null ? { base: e.initialBase } : {}),
});

/** do_bet params (docs/protocol.md "Bets"; is_offer is a boolean and bonus_id a string on the server). */
export function doBetParams(slip: BetslipState, only?: { eventId: number; stake: string }): Record<string, unknown> {
  if (only) {
    const e = slip.events.find((x) => x.eventId === only.eventId);
    return {
      type: SINGLE, mode: slip.acceptPriceChanges, amount: Number(only.stake), each_way: false, source: SWARM_SOURCE,
      bets: e ? [pickParam(e, Number(e.initialPrice))] : [], odd_type: 0, is_offer: false,
    };
  }
  const offered = slip.type === SINGLE && slip.betterOddSelectionMode && slip.events[0] ? betterOdds(slip.events[0].price) : null;
  const amount = slip.freeBet ? Number(slip.selectedFreeBetAmount ?? 0) : Number(slip.stake);
  const params: Record<string, unknown> = {
    type: slip.type,
    mode: slip.superBet ? -1 : slip.acceptPriceChanges,
    amount,
    each_way: slip.eachWayMode,
    source: SWARM_SOURCE,
    bets: slip.events.map((e) => pickParam(e, e.oddType === 'sp' ? -1 : offered ?? Number(e.initialPrice))),
    odd_type: 0,
    is_offer: offered !== null,
  };
  if (slip.type === SYSTEM) params.sys_bet = sysBetValue(slip.sysOptionValue, slip.bankerBetsCount);
  if (slip.freeBet && slip.selectedFreeBetId !== null) params.bonus_id = String(slip.selectedFreeBetId);
  return params;
}

const LOGIN: SlipMessage = { key: MSG.login, action: 'login' };

/** The message of a refused bet. */
export function refusalMessage(answer: DoBetAnswer): SlipMessage {
  const code = Number(answer.result);
  if (code === ODDS_CHANGED) return { key: MSG.priceChanged, action: 'accept' };
  if (code === INSUFFICIENT_BALANCE) return { key: MSG.insufficient, action: 'deposit' };
  if (code === NOT_LOGGED_IN) return LOGIN;
  const known = messageForCode(Number.isFinite(code) ? code : -4);
  if (known.key === 'error.unknown' && answer.result_text) return { key: '', text: answer.result_text };
  return { key: known.key, args: known.args };
}

/** do_bet; a session that lost its login (code 12 while a member) gets restore_login and one retry. */
export function* sendBet(deps: BetslipDeps, params: Record<string, unknown>): SagaIterator<DoBetAnswer> {
  try {
    return (yield call(deps.request, 'do_bet', params)) as DoBetAnswer;
  } catch (err) {
    const auth: ReturnType<typeof selectAuth> = yield select(selectAuth);
    if (!(err instanceof SwarmError && err.code === NOT_LOGGED_IN && auth)) throw err;
    yield call(deps.request, 'restore_login', { user_id: auth.user_id, auth_token: auth.auth_token });
    return (yield call(deps.request, 'do_bet', params)) as DoBetAnswer;
  }
}

function* failed(message: SlipMessage): SagaIterator {
  yield put(betslipActions.placeFailed(message));
  if (message.action === 'login') yield put(uiActions.popupRequested({ name: 'login' }));
}

function failure(err: unknown): SlipMessage {
  if (err instanceof SwarmError && err.code === NOT_LOGGED_IN) return LOGIN;
  if (err instanceof SwarmError) return { key: '', text: err.message };
  return { key: 'error.network' };
}

/** Places the slip. Runs to the end before the next submit is taken. */
export function* placeBet(deps: BetslipDeps): SagaIterator {
  const slip: BetslipState = yield select(selectSlip);
  const loggedIn: boolean = yield select(selectLoggedIn);
  const balance: number | null = yield select(selectStakeBalance);
  const stake = slip.freeBet ? (slip.selectedFreeBetAmount ?? '') : slip.stake;
  const blocking = blockingMessage({ type: slip.type, events: slip.events, stake, loggedIn, balance, freeBet: slip.freeBet });
  if (blocking) {
    if (slip.events.length === 0) return; // a second submit after an accepted bet: nothing left to place
    yield call(failed, blocking === MSG.login ? LOGIN : { key: blocking, action: blocking === MSG.insufficient ? 'deposit' : undefined });
    return;
  }
  yield put(betslipActions.placeStarted());
  let answer: DoBetAnswer;
  try {
    answer = yield call(sendBet, deps, doBetParams(slip));
  } catch (err) {
    yield call(failed, failure(err));
    return;
  }
  if (String(answer.result).toUpperCase() === 'OK') {
    yield call(accepted, answer.details as BetSuccess);
    return;
  }
  if (Number(answer.result) === ODDS_CHANGED && Array.isArray(answer.details)) {
    yield put(betslipActions.pricesChanged(answer.details as Array<{ event_id: number; new_price: string }>));
  }
  yield call(failed, refusalMessage(answer));
}

/** OK: the success popup, the balance, 'Bet accepted.' for 5 s, the slip closes 500 ms later. */
export function* accepted(details: BetSuccess): SagaIterator {
  yield put(betslipActions.placeAccepted(details));
  yield put(balanceActions.refreshRequested());
  yield put(uiActions.notified({ kind: 'info', key: 'betslip.bet_accepted', ms: BET_ACCEPTED_MS }));
  yield delay(CLOSE_AFTER_BET_MS);
  yield put(betslipActions.closed());
  yield put(selectionsActions.cleared());
  yield put(betslipActions.slipCleared());
}

let noticeId = 0;

function* quickNotice(kind: 'ok' | 'error', message: SlipMessage): SagaIterator {
  const id = ++noticeId;
  yield put(betslipActions.quickBetNotified({ id, kind, key: message.key, args: message.args, text: message.text }));
  yield delay(QUICK_BET_NOTICE_MS);
  yield put(betslipActions.quickBetNoticeDismissed(id));
}

/** Quick bet: the tapped pick alone, at the saved quick stake; the pick leaves the slip after (notices are spawned: the queue does not wait for them). */
export function* quickPlace(deps: BetslipDeps, eventId: number): SagaIterator {
  const slip: BetslipState = yield select(selectSlip);
  const loggedIn: boolean = yield select(selectLoggedIn);
  if (!loggedIn) {
    yield spawn(quickNotice, 'error', LOGIN);
    yield put(uiActions.popupRequested({ name: 'login' }));
    return;
  }
  let message: SlipMessage | null = null;
  try {
    const answer: DoBetAnswer = yield call(sendBet, deps, doBetParams(slip, { eventId, stake: slip.quickBetStake }));
    if (String(answer.result).toUpperCase() === 'OK') yield put(balanceActions.refreshRequested());
    else message = refusalMessage(answer);
  } catch (err) {
    message = failure(err);
  }
  yield put(selectionsActions.removed(eventId));
  yield spawn(quickNotice, message ? 'error' : 'ok', message ?? { key: 'betslip.bet_accepted' });
}

/** One submit at a time: a second tap waits in the channel until the first bet has an answer. */
export function* placeQueue(deps: BetslipDeps): SagaIterator {
  const queue: Channel<PayloadAction<number | undefined>> = yield actionChannel(
    [betslipActions.placeRequested.type, betslipActions.quickPlaceRequested.type], buffers.expanding(4),
  );
  for (;;) {
    const action: PayloadAction<number | undefined> = yield take(queue);
    if (action.type === betslipActions.quickPlaceRequested.type) yield call(quickPlace, deps, action.payload as number);
    else yield call(placeBet, deps);
  }
}

/** A price tapped in quick-bet mode is placed at once. */
function* watchQuickBet(action: ReturnType<typeof selectionsActions.toggled>): SagaIterator {
  const slip: BetslipState = yield select(selectSlip);
  if (!slip.quickBet || !slip.events.some((e) => e.eventId === action.payload.eventId)) return;
  yield put(betslipActions.quickPlaceRequested(action.payload.eventId));
}

export function* maxBet(deps: BetslipDeps): SagaIterator {
  const slip: BetslipState = yield select(selectSlip);
  const loggedIn: boolean = yield select(selectLoggedIn);
  if (!loggedIn) {
    yield put(betslipActions.maxBetFinished(null));
    yield call(failed, LOGIN);
    return;
  }
  try {
    const answer: { amount?: string | number } = yield call(deps.request, 'get_max_bet', {
      type: slip.type, bets: slip.events.map((e) => ({ event_id: e.eventId })),
    });
    const amount = Number(answer?.amount);
    yield put(betslipActions.maxBetFinished(Number.isFinite(amount) ? String(Math.floor(amount * 100) / 100) : null));
  } catch (err) {
    yield put(betslipActions.maxBetFinished(null));
    yield put(betslipActions.messageShown(failure(err)));
  }
}

/**
 * Booking id. TODO: the contract has no booking call yet (docs/protocol.md "Bets");
 * until it has, the button answers that booking is not available.
 */
export function* bookBet(): SagaIterator {
  yield delay(0);
  yield put(betslipActions.bookingFinished(null));
  yield put(betslipActions.messageShown({ key: 'betslip.booking_unavailable' }));
}

/* ---------- live prices of the picks ---------- */

const PICK_FIELDS = {
  game: ['id', 'type', 'is_blocked'],
  market: ['id', 'base', 'is_suspended'],
  event: ['id', 'price', 'base', 'is_suspended'],
};

/** The picks' game, market and event with price, base and suspension. */
export const picksQuery = (eventIds: number[]): SwarmQuery => ({
  what: PICK_FIELDS,
  where: { event: { id: { '@in': [...eventIds].sort((a, b) => a - b) } } },
});

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const LEVELS = ['sport', 'region', 'competition', 'game', 'market', 'event'];

/** Walks the nested answer: each event with its market's base and the blocks above it. */
export function collectFeed(data: unknown): Record<string, FeedEvent> {
  const out: Record<string, FeedEvent> = {};
  const walk = (node: Node, blocked: boolean, base: string | null) => {
    for (const level of LEVELS) {
      const children = node[level];
      if (!isNode(children)) continue;
      for (const [id, child] of Object.entries(children)) {
        if (!isNode(child)) continue;
        if (level === 'event') {
          out[id] = {
            price: child.price === undefined ? '' : String(child.price),
            base: child.base !== undefined && child.base !== null ? String(child.base) : base,
            blocked: blocked || Boolean(child.is_suspended),
          };
        } else if (level === 'market') {
          walk(child, blocked || Boolean(child.is_suspended), child.base !== undefined && child.base !== null ? String(child.base) : null);
        } else {
          walk(child, blocked || Boolean(child.is_blocked), base);
        }
      }
    }
  };
  if (isNode(data)) walk(data, false, null);
  return out;
}

/** Feed data that differs from what the slip shows. */
function differs(slip: BetslipState, feed: Record<string, FeedEvent>, ready: boolean) {
  return slip.events.some((e) => {
    const f = feed[String(e.eventId)];
    if (!f) return ready && !e.deleted;
    return e.deleted || f.blocked !== e.blocked || (f.price !== '' && Number(f.price) !== Number(e.price)) || (f.base ?? null) !== e.base;
  });
}

export function* feedSync(): SagaIterator {
  let key: string | null = null;

  function* publish(): SagaIterator {
    if (!key) return;
    const sub: RootState['live']['subs'][string] | undefined = yield select((s: RootState) => s.live.subs[key!]);
    if (!sub || sub.data === null) return;
    const feed = collectFeed(sub.data);
    const ready = sub.status === 'ready';
    const slip: BetslipState = yield select(selectSlip);
    if (differs(slip, feed, ready)) yield put(betslipActions.feedUpdated({ events: feed, ready }));
  }

  function* follow(): SagaIterator {
    yield delay(QUOTE_DEBOUNCE_MS);
    const ids: number[] = yield select((s: RootState) => s.betslip.events.map((e) => e.eventId));
    const next = ids.length > 0 ? picksQuery(ids) : null;
    const nextKey = next ? queryKey(next) : null;
    if (nextKey === key) return;
    if (next && nextKey) yield put(liveActions.subscribeRequested({ key: nextKey, query: next }));
    if (key) yield put(liveActions.unsubscribeRequested({ key }));
    key = nextKey;
    yield call(publish);
  }

  yield takeLatest(
    [selectionsActions.toggled.type, selectionsActions.removed.type, selectionsActions.cleared.type, betslipActions.slipCleared.type],
    follow,
  );
  yield takeEvery([liveActions.subscribed.type, liveActions.pushed.type], publish);
}

export function* betslipSaga(deps: BetslipDeps = defaultDeps): SagaIterator {
  yield fork(placeQueue, deps);
  yield fork(feedSync);
  yield takeEvery(selectionsActions.toggled.type, watchQuickBet);
  yield takeLeading(betslipActions.maxBetRequested.type, maxBet, deps);
  yield takeLeading(betslipActions.bookingRequested.type, bookBet);
}

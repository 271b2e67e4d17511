/**
 * Betslip side effects: placing (do_bet over the Swarm session, one submit at a time),
 * quick bets, Max (get_max_bet), the booking id, the live prices of the picks and
 * the member's free bets (get_free_bets).
 */
import { actionChannel, call, delay, fork, put, select, spawn, take, takeEvery, takeLatest, takeLeading } from 'redux-saga/effects';
import { buffers, type Channel, type SagaIterator } from 'redux-saga';
import type { Action, PayloadAction } from '@reduxjs/toolkit';
import { NAMED_ERRORS, NOT_LOGGED_IN, messageForFailure, messageForRefusal } from '../../api/errors';
import { SWARM_SOURCE, SwarmError } from '../../api/swarm';
import type { RootState } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { swarmRequest } from '../live/connection';
import { memberRequest } from '../live/memberRequest';
import { historyActions } from '../history/historySlice';
import { liveActions, queryKey, type SwarmQuery } from '../live/liveSlice';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import { selectLoggedIn } from '../session/selectors';
import { sessionActions } from '../session/sessionSlice';
import { uiActions } from '../shell/uiSlice';
import {
  betslipActions, type BetSuccess, type BetslipEvent, type BetslipState, type FeedEvent, type FreeBet, type SlipMessage,
} from './betslipSlice';
import { MSG, SINGLE, SP_PRICE, SYSTEM, betterOdds, blockingMessage, isSp, sysBetValue, type BetType } from './calc';
import { selectStakeBalance } from './selectors';
import { dec, moneyDown, sameDecimal } from './arith';

/** 'Bet accepted.' stays 5000 ms; the betslip closes 500 ms after the bet (spec 000 section 9). */
export const BET_ACCEPTED_MS = 5000;
export const CLOSE_AFTER_BET_MS = 500;
export const QUICK_BET_NOTICE_MS = 5000;
/** Quote refresh debounce: the picks' price subscription follows the slip after this pause. */
export const QUOTE_DEBOUNCE_MS = 300;
/** Codes of do_bet results with their own handling. */
export const ODDS_CHANGED = 1800;
export const INSUFFICIENT_BALANCE = 2400;
/** Over the member's limit; with details.super_bet the slip may go again as a super bet. */
export const MEMBER_LIMIT = 1510;
export const SUPER_BET_SUGGESTED = 'error.1510_sb';
/** do_bet OK with this status: a super bet held for support (On Hold). */
export const ON_HOLD = -5;
export const HELD_NOTICE = 'betslip.super_bet_held';
export const HELD_NOTICE_MS = 8000;
/** do_bet refusal: the bonus_id cannot be staked (unknown, used, expired, or not its whole amount). */
export const FREE_BET_UNAVAILABLE = 1912;
/** The free-bet list reloads this long after what may change it (spec 000 section 9). */
export const FREE_BET_RELOAD_MS = 100;

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
  const first = slip.events[0];
  // the offered price as shown (./arith.ts); the server holds it to the raised live price
  const offeredText = slip.type === SINGLE && slip.betterOddSelectionMode && first && !isSp(first) ? betterOdds(first.price) : null;
  const offered = offeredText === null ? null : Number(offeredText);
  const amount = slip.freeBet ? Number(slip.selectedFreeBetAmount ?? 0) : Number(slip.stake);
  const params: Record<string, unknown> = {
    type: slip.type,
    mode: slip.superBet ? -1 : slip.acceptPriceChanges,
    amount,
    each_way: slip.eachWayMode,
    source: SWARM_SOURCE,
    bets: slip.events.map((e) => pickParam(e, isSp(e) ? SP_PRICE : offered ?? Number(e.initialPrice))),
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
  if (code === MEMBER_LIMIT && (answer.details as { super_bet?: unknown } | null | undefined)?.super_bet === true) {
    return { key: SUPER_BET_SUGGESTED, action: 'superBet' };
  }
  if (code === INSUFFICIENT_BALANCE) return { key: MSG.insufficient, action: 'deposit' };
  if (code === NOT_LOGGED_IN) return LOGIN;
  // the catalogue's message in the member's language; a code outside it reads 'Unknown error (N)', never result_text
  const known = messageForRefusal(answer.result);
  return { key: known.key, args: known.args };
}

/** do_bet; a session that lost its login (code 12 while a member) gets restore_login and one retry. */
export function* sendBet(deps: BetslipDeps, params: Record<string, unknown>): SagaIterator<DoBetAnswer> {
  return (yield call(memberRequest, deps.request, 'do_bet', params)) as DoBetAnswer;
}

function* failed(message: SlipMessage): SagaIterator {
  yield put(betslipActions.placeFailed(message));
  if (message.action === 'login') yield put(uiActions.popupRequested({ name: 'login' }));
}

function failure(err: unknown): SlipMessage {
  if (err instanceof SwarmError && err.code === NOT_LOGGED_IN) return LOGIN;
  const known = messageForFailure(err);
  return known.args.length > 0 ? { key: known.key, args: known.args } : { key: known.key };
}

/** Places the slip (as a super bet: mode -1). Runs to the end before the next submit is taken. */
export function* placeBet(deps: BetslipDeps, { superBet = false } = {}): SagaIterator {
  const current: BetslipState = yield select(selectSlip);
  const slip = superBet ? { ...current, superBet: true } : current;
  const loggedIn: boolean = yield select(selectLoggedIn);
  const balance: string | null = yield select(selectStakeBalance);
  const stake = slip.freeBet ? (slip.selectedFreeBetAmount ?? '') : slip.stake;
  const blocking = blockingMessage({
    type: slip.type, events: slip.events, stake, loggedIn, balance, freeBet: slip.freeBet, sysK: slip.sysOptionValue, eachWay: slip.eachWayMode,
  });
  if (blocking) {
    if (slip.events.length === 0) return; // a second submit after an accepted bet: nothing left to place
    yield call(failed, blocking === MSG.login ? LOGIN : { key: blocking, action: blocking === MSG.insufficient ? 'deposit' : undefined });
    return;
  }
  yield put(betslipActions.placeStarted());
  const params = doBetParams(slip);
  let answer: DoBetAnswer;
  try {
    answer = yield call(sendBet, deps, params);
  } catch (err) {
    yield call(failed, failure(err));
    return;
  }
  if (String(answer.result).toUpperCase() === 'OK') {
    const details = answer.details as (BetSuccess & { status?: number }) | null;
    if (slip.freeBet && slip.selectedFreeBetId !== null) yield put(betslipActions.freeBetUsed(slip.selectedFreeBetId));
    if (Number(details?.status) === ON_HOLD) yield call(held);
    else yield call(accepted, details as BetSuccess, oddsCorrected(params, details));
    return;
  }
  if (Number(answer.result) === ODDS_CHANGED && Array.isArray(answer.details)) {
    yield put(betslipActions.pricesChanged(answer.details as Array<{ event_id: number; new_price: string }>));
  }
  if (Number(answer.result) === FREE_BET_UNAVAILABLE) yield put(betslipActions.freeBetsReloadRequested());
  yield call(failed, refusalMessage(answer));
}

/** Some leg of the accepted bet has another fixed price than the one sent. */
export function oddsCorrected(params: Record<string, unknown>, details: BetSuccess | null): boolean {
  const sent = new Map((params.bets as Array<{ event_id: number; price: number }>).map((b) => [Number(b.event_id), b.price]));
  return (details?.events ?? []).some((e) => {
    const price = sent.get(Number(e.event_id));
    return price !== undefined && price !== SP_PRICE && e.price !== undefined && e.price !== null && !sameDecimal(e.price, price);
  });
}

/** OK: the success popup, the balance, 'Bet accepted.' for 5 s, the slip closes 500 ms later. */
export function* accepted(details: BetSuccess, corrected = false): SagaIterator {
  yield put(betslipActions.placeAccepted(details));
  yield put(balanceActions.refreshRequested());
  // taken at another price than the one sent (mode 1 or 2 let it move): LIMIT_ERROR 'Odds have been corrected'
  yield put(corrected
    ? uiActions.notified({ kind: 'warning', key: NAMED_ERRORS.LIMIT_ERROR, ms: BET_ACCEPTED_MS })
    : uiActions.notified({ kind: 'info', key: 'betslip.bet_accepted', ms: BET_ACCEPTED_MS }));
  yield delay(CLOSE_AFTER_BET_MS);
  yield put(betslipActions.closed());
  yield put(selectionsActions.cleared());
  yield put(betslipActions.slipCleared());
}

/** A super bet placed On Hold: not accepted yet, support keeps the order (spec 000 section 8). */
export function* held(): SagaIterator {
  yield put(betslipActions.placeHeld());
  yield put(balanceActions.refreshRequested());
  yield put(uiActions.notified({ kind: 'warning', key: HELD_NOTICE, ms: HELD_NOTICE_MS }));
  yield put(historyActions.changed());
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
    [betslipActions.placeRequested.type, betslipActions.quickPlaceRequested.type, betslipActions.superBetPlaceRequested.type],
    buffers.expanding(4),
  );
  for (;;) {
    const action: PayloadAction<number | undefined> = yield take(queue);
    if (action.type === betslipActions.quickPlaceRequested.type) yield call(quickPlace, deps, action.payload as number);
    else yield call(placeBet, deps, { superBet: action.type === betslipActions.superBetPlaceRequested.type });
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
    const answer: { amount?: string | number; result?: string | number } = yield call(deps.request, 'get_max_bet', {
      type: slip.type, bets: slip.events.map((e) => ({ event_id: e.eventId })),
    });
    // { amount } or, as the real protocol answers, { result: <amount> }; rounded down to the currency, exactly
    const amount = dec(answer?.amount ?? answer?.result);
    yield put(betslipActions.maxBetFinished(amount && amount.gte(0) ? moneyDown(amount) : null));
  } catch (err) {
    yield put(betslipActions.maxBetFinished(null));
    yield put(betslipActions.messageShown(failure(err)));
  }
}

/* ---------- booking ids (docs/protocol.md "Booking ids") ---------- */

/** book_bet / get_booking answer their outcome the do_bet way: result 0 or a catalogue code. */
export interface BookingAnswer<T> {
  result: string | number;
  result_text?: string | null;
  details?: T | null;
}

/** One pick of a get_booking answer; price is the current live one, null when the event has gone. */
export interface BookedPick {
  event_id: number;
  price: string | number | null;
  booked_price?: string | number | null;
  base?: string | number | null;
  game_id: number;
  market_id: number;
  event_name: string;
  market_name: string;
  team1: string;
  team2?: string | null;
  start_ts?: number;
  is_live?: boolean;
  available: boolean;
}

export interface BookedSlip {
  type: number;
  sys_bet: number | null;
  bets: BookedPick[];
}

/** book_bet params: the type, the system size and each pick at the price the slip shows (-1 for SP). */
export function bookBetParams(slip: BetslipState): Record<string, unknown> {
  const params: Record<string, unknown> = {
    type: slip.type,
    bets: slip.events.map((e) => ({ event_id: e.eventId, price: isSp(e) ? SP_PRICE : Number(e.price) || null })),
  };
  if (slip.type === SYSTEM) params.sys_bet = sysBetValue(slip.sysOptionValue, slip.bankerBetsCount);
  return params;
}

/** A booked pick as a selection: the current price, or the booked one when the event has gone. */
export function bookedSelection(b: BookedPick): Selection {
  const price = b.price ?? b.booked_price ?? null;
  return {
    gameId: Number(b.game_id), marketId: Number(b.market_id), eventId: Number(b.event_id),
    price: price === null ? '' : String(price), base: b.base === null || b.base === undefined ? null : String(b.base),
    marketName: b.market_name, eventName: b.event_name, team1: b.team1, team2: b.team2 ?? '', isLive: Boolean(b.is_live),
    startTs: b.start_ts,
  };
}

/** The booking-id button: the slip's picks saved under an id shown in the slip (members and visitors). */
export function* bookBet(deps: BetslipDeps): SagaIterator {
  const slip: BetslipState = yield select(selectSlip);
  if (slip.events.length === 0) {
    yield put(betslipActions.bookingFinished(null));
    return;
  }
  try {
    const answer: BookingAnswer<{ number?: string }> = yield call(deps.request, 'book_bet', bookBetParams(slip));
    const id = Number(answer.result) === 0 ? answer.details?.number : undefined;
    yield put(betslipActions.bookingFinished(id ? String(id) : null));
    if (!id) yield put(betslipActions.messageShown(refusalMessage(answer)));
  } catch (err) {
    yield put(betslipActions.bookingFinished(null));
    yield put(betslipActions.messageShown(failure(err)));
  }
}

const BET_TYPES = [1, 2, 3, 4];

/** 'Load booking': the booked picks replace the slip, at current prices; gone or blocked ones are marked. */
export function* loadBooking(deps: BetslipDeps, action: PayloadAction<string>): SagaIterator {
  const id = action.payload.trim();
  if (!id) {
    yield put(betslipActions.bookingLoadFinished({ key: 'betslip.booking_not_found' }));
    return;
  }
  let answer: BookingAnswer<BookedSlip>;
  try {
    answer = yield call(deps.request, 'get_booking', { booking_id: id });
  } catch (err) {
    yield put(betslipActions.bookingLoadFinished(failure(err)));
    return;
  }
  const booked = Number(answer.result) === 0 ? answer.details : null;
  if (!booked || !Array.isArray(booked.bets)) {
    yield put(betslipActions.bookingLoadFinished(refusalMessage(answer)));
    return;
  }
  const slip: BetslipState = yield select(selectSlip);
  if (slip.quickBet) yield put(betslipActions.quickBetToggled(false)); // loaded picks are not quick bets
  yield put(selectionsActions.cleared());
  for (const pick of booked.bets) yield put(selectionsActions.toggled(bookedSelection(pick)));
  const type = BET_TYPES.includes(Number(booked.type)) ? (Number(booked.type) as BetType) : SINGLE;
  yield put(betslipActions.bookingLoaded({
    type,
    sysBet: booked.sys_bet === null || booked.sys_bet === undefined ? null : Number(booked.sys_bet),
    events: booked.bets.map((b) => ({
      eventId: Number(b.event_id), available: Boolean(b.available), gone: b.price === null || b.price === undefined,
    })),
  }));
  yield put(betslipActions.bookingLoadFinished(null));
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

/* ---------- free bets (get_free_bets) ---------- */

/** get_free_bets answers the do_bet way: result 0 and the free bets, soonest to expire first. */
export interface FreeBetsAnswer {
  result: string | number;
  result_text?: string | null;
  details?: unknown;
}

const ID = /^[1-9]\d*$/;
const AMOUNT = /^\d+(\.\d+)?$/;

/** The details as the slip's free bets; entries without a positive id and amount are left out. */
export function parseFreeBets(details: unknown): FreeBet[] {
  if (!Array.isArray(details)) return [];
  const out: FreeBet[] = [];
  for (const d of details) {
    if (!isNode(d)) continue;
    const rawId = typeof d.id === 'number' || typeof d.id === 'string' ? String(d.id).trim() : '';
    const amount = typeof d.amount === 'number' || typeof d.amount === 'string' ? String(d.amount).trim() : '';
    const id = ID.test(rawId) ? Number(rawId) : NaN;
    if (!Number.isSafeInteger(id) || !AMOUNT.test(amount) || !(Number(amount) > 0) || out.some((f) => f.id === id)) continue;
    out.push({ id, amount });
  }
  return out;
}

/** Loads the member's free bets; a failure keeps the list as it was. */
export function* loadFreeBets(deps: BetslipDeps): SagaIterator {
  const loggedIn: boolean = yield select(selectLoggedIn);
  if (!loggedIn) return;
  let answer: FreeBetsAnswer;
  try {
    answer = yield call(memberRequest, deps.request, 'get_free_bets', {});
  } catch {
    return;
  }
  if (Number(answer?.result) !== 0 || !Array.isArray(answer.details)) return;
  yield put(betslipActions.freeBetsLoaded(parseFreeBets(answer.details)));
}

/** What may change the free bets; a logout or a profile without them cancels a pending reload. */
const freeBetEvent = (a: Action) =>
  sessionActions.profileLoaded.match(a) || sessionActions.loggedOut.match(a) || (betslipActions.freeBetToggled.match(a) && a.payload)
  || betslipActions.freeBetUsed.match(a) || betslipActions.freeBetsReloadRequested.match(a);

/** The list reloads 100 ms after: the profile says has_free_bets, the switch goes on, a free bet was staked or refused. */
export function* freeBetReload(deps: BetslipDeps, action: Action): SagaIterator {
  if (sessionActions.loggedOut.match(action)) return;
  if (sessionActions.profileLoaded.match(action) && !(action.payload as { has_free_bets?: unknown }).has_free_bets) return;
  if (betslipActions.freeBetToggled.match(action)) {
    const has: boolean = yield select((s: RootState) => s.betslip.hasFreeBets);
    if (!has) return;
  }
  yield delay(FREE_BET_RELOAD_MS);
  yield call(loadFreeBets, deps);
}

export function* betslipSaga(deps: BetslipDeps = defaultDeps): SagaIterator {
  yield fork(placeQueue, deps);
  yield fork(feedSync);
  yield takeEvery(selectionsActions.toggled.type, watchQuickBet);
  yield takeLeading(betslipActions.maxBetRequested.type, maxBet, deps);
  yield takeLeading(betslipActions.bookingRequested.type, bookBet, deps);
  yield takeLeading(betslipActions.bookingLoadRequested.type, loadBooking, deps);
  yield takeLatest(freeBetEvent, freeBetReload, deps);
}

/**
 * Cash-out side effects (spec 000 sections 4, 7.5; docs/cashout-and-backoffice.md):
 * while the dialog is open the amount comes from calculate_cashout_amount, again
 * whenever a price of the bet's open selections moves (a live subscription) and at
 * least every 5 s; the rule comes from get_bet_auto_cashout. Cash-out, set and
 * cancel rule are one request at a time.
 */
import { call, delay, put, race, select, take, takeLatest, takeLeading } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { messageForCode, messageForFailure, messageForRefusal } from '../../api/errors';
import { SwarmError } from '../../api/swarm';
import type { RootState } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { collectFeed, picksQuery } from '../betslip/sagas';
import { historyActions } from '../history/historySlice';
import { cashoutOffered, type AutoCashoutRule, type BetRecord } from '../history/model';
import { liveActions, queryKey } from '../live/liveSlice';
import { realtimeActions } from '../realtime/realtimeSlice';
import { defaultMemberDeps, memberRequest, resultIs, type MemberDeps } from '../live/memberRequest';
import { selectLoggedIn } from '../session/selectors';
import { autoBounds, autoErrors, money2, parseAmount, partialError, type Msg } from './calc';
import { cashoutActions, toRule, type CashoutBet, type CashoutDone, type CashoutState } from './cashoutSlice';

/** The amount is asked for again at least this often while the dialog is open. */
export const REFRESH_MS = 5000;
/** A price move is followed by a new amount after this pause (pushes come in bursts). */
export const PRICE_SETTLE_MS = 300;

interface Answer<D = unknown> {
  result: string | number;
  result_text?: string | null;
  details?: D;
}
type CalcDetails = Array<{ Id: number | string; CashoutAmount: number | string | null }>;

const selectState = (s: RootState) => s.cashout;
const isZero = (result: unknown) => result === 0 || result === '0';

const amountOf = (v: unknown): number | null => {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/** A failed command: the catalogue's or the connection's message in the member's language (never the raw text). */
function failure(err: unknown): Msg {
  if (err instanceof SwarmError && messageForCode(err.code).key !== 'error.unknown') return messageForCode(err.code);
  return messageForFailure(err);
}

/** A refusal by code: the catalogue text, or 'Unknown error (N)' when the code is not in it. */
function refusal(answer: Answer): Msg {
  const known = messageForRefusal(answer.result);
  return { key: known.key, args: known.args };
}

/** calculate_cashout_amount for some bets: id -> amount (null: not cashable now; left out: unknown). */
export function* calculate(deps: MemberDeps, ids: string[]): SagaIterator<Record<string, number | null>> {
  const answer: Answer<CalcDetails> = yield call(memberRequest, deps.request, 'calculate_cashout_amount', { bet_ids: ids.map(Number) });
  const out: Record<string, number | null> = Object.fromEntries(ids.map((id) => [id, null]));
  for (const d of Array.isArray(answer?.details) ? answer.details : []) out[String(d.Id)] = amountOf(d.CashoutAmount);
  return out;
}

function* refreshAmount(deps: MemberDeps, id: string): SagaIterator {
  try {
    const amounts: Record<string, number | null> = yield call(calculate, deps, [id]);
    yield put(cashoutActions.amountLoaded({ id, amount: amounts[id] ?? null }));
  } catch {
    yield put(cashoutActions.amountFailed());
  }
}

/** Resolves when a price (or a suspension) of the subscribed selections changes. */
export function* pricesMoved(key: string): SagaIterator {
  const feed = (s: RootState) => JSON.stringify(collectFeed(s.live.subs[key]?.data ?? null));
  const before: string = yield select(feed);
  for (;;) {
    yield take([liveActions.pushed.type, liveActions.subscribed.type]);
    const now: string = yield select(feed);
    if (now !== before) break;
  }
  yield delay(PRICE_SETTLE_MS);
}

function* refreshLoop(deps: MemberDeps, bet: CashoutBet, key: string | null): SagaIterator {
  for (;;) {
    yield call(refreshAmount, deps, bet.id);
    yield race({ tick: delay(REFRESH_MS), moved: key ? call(pricesMoved, key) : delay(REFRESH_MS) });
  }
}

export function* loadRule(deps: MemberDeps, id: string): SagaIterator {
  try {
    const answer: Answer = yield call(memberRequest, deps.request, 'get_bet_auto_cashout', { bet_id: Number(id) });
    yield put(cashoutActions.ruleLoaded(toRule(answer?.details)));
  } catch {
    yield put(cashoutActions.ruleLoadFailed());
  }
}

/** One open dialog: the rule once, the amount until it closes or the cash-out is done. */
export function* dialogSession(deps: MemberDeps, action: ReturnType<typeof cashoutActions.opened>): SagaIterator {
  const { bet } = action.payload;
  const query = bet.eventIds.length > 0 ? picksQuery(bet.eventIds) : null;
  const key = query ? queryKey(query) : null;
  if (query && key) yield put(liveActions.subscribeRequested({ key, query }));
  try {
    yield call(loadRule, deps, bet.id);
    yield race({
      refresh: call(refreshLoop, deps, bet, key),
      stop: take([cashoutActions.closed.type, cashoutActions.cashoutSucceeded.type]),
    });
  } finally {
    if (key) yield put(liveActions.unsubscribeRequested({ key }));
  }
}

/** The record after a cash-out: cashed out (5) with the amount as its payout, or running on the remaining stake. */
function patchOf(done: CashoutDone): Partial<BetRecord> {
  if (done.status === 5) return { outcome: 5, payout: done.amount, remaining_stake: '0.00' };
  return { remaining_stake: done.remainingStake };
}

/** After money moved: the balance and the bet history. */
function* afterCashout(): SagaIterator {
  yield put(balanceActions.refreshRequested());
  yield put(historyActions.changed());
}

/** cashout {bet_id, price, partial_price?}: Ok, Fail (the amount moved: new_price offered) or NotAvailable. */
export function* cashOut(deps: MemberDeps): SagaIterator {
  const s: CashoutState = yield select(selectState);
  if (!s.bet || s.amount === null || s.cashing || s.done) return;
  const params: Record<string, unknown> = { bet_id: Number(s.bet.id), price: s.amount };
  if (s.scope === 'partial') {
    const invalid = partialError(s.partial, s.amount);
    if (invalid) {
      yield put(cashoutActions.cashoutFailed(invalid));
      return;
    }
    params.partial_price = parseAmount(s.partial);
  }
  // One id per attempt: a request sent again (after a lost session) is not a second cash-out.
  params.request_id = attemptId();
  yield put(cashoutActions.cashoutStarted());
  let answer: Answer<Record<string, unknown> | null>;
  try {
    answer = yield call(memberRequest, deps.request, 'cashout', params);
  } catch (err) {
    yield put(cashoutActions.cashoutFailed(failure(err)));
    return;
  }
  const d = answer?.details ?? {};
  if (resultIs(answer?.result, 'Ok')) {
    const done = {
      amount: String(d.cash_out_amount ?? params.partial_price ?? params.price),
      remainingStake: String(d.remaining_stake ?? '0.00'),
      status: Number(d.status ?? 5),
    };
    yield put(cashoutActions.cashoutSucceeded(done));
    yield put(historyActions.betPatched({ id: s.bet.id, changes: patchOf(done) }));
    yield call(afterCashout);
  } else if (resultIs(answer?.result, 'Fail')) {
    const suggested = amountOf(d.new_price) ?? amountOf(d.price);
    if (suggested === null) yield put(cashoutActions.notAvailable());
    else yield put(cashoutActions.cashoutMoved(suggested));
  } else if (resultIs(answer?.result, 'NotAvailable')) {
    yield put(cashoutActions.notAvailable());
  } else {
    yield put(cashoutActions.cashoutFailed(refusal(answer)));
  }
}

/** set_bet_auto_cashout within the bounds; 1109 shows the server's bounds. */
export function* setRule(deps: MemberDeps): SagaIterator {
  const s: CashoutState = yield select(selectState);
  if (!s.bet || s.amount === null || s.auto.saving) return;
  const errors = autoErrors(s.auto.trigger, s.auto.partial, autoBounds(s.amount, s.bet.possibleWin));
  const invalid = errors.trigger ?? errors.partial;
  if (invalid) {
    yield put(cashoutActions.ruleRefused({ error: invalid, bounds: null }));
    return;
  }
  const minAmount = parseAmount(s.auto.trigger);
  const partial = s.auto.partial.trim() === '' ? null : parseAmount(s.auto.partial);
  const params: Record<string, unknown> = { bet_id: Number(s.bet.id), min_amount: minAmount };
  if (partial !== null) params.partial_amount = partial;
  yield put(cashoutActions.ruleSaving());
  let answer: Answer<{ min?: string | number; max?: string | number } | null>;
  try {
    answer = yield call(memberRequest, deps.request, 'set_bet_auto_cashout', params);
  } catch (err) {
    yield put(cashoutActions.ruleRefused({ error: failure(err), bounds: null }));
    return;
  }
  if (isZero(answer?.result)) {
    const rule: AutoCashoutRule = { MinAmount: money2(minAmount), PartialAmount: partial === null ? null : money2(partial) };
    yield put(cashoutActions.ruleSet(rule));
    yield put(historyActions.changed());
  } else if (resultIs(answer?.result, 'NotAvailable')) {
    yield put(cashoutActions.notAvailable());
  } else {
    const d = answer?.details;
    const bounds = d && d.min !== undefined && d.max !== undefined ? { min: Number(d.min), max: Number(d.max) } : null;
    yield put(cashoutActions.ruleRefused({ error: refusal(answer), bounds }));
  }
}

export function* cancelRule(deps: MemberDeps): SagaIterator {
  const s: CashoutState = yield select(selectState);
  if (!s.bet) return;
  try {
    const answer: Answer = yield call(memberRequest, deps.request, 'cancel_bet_auto_cashout', { bet_id: Number(s.bet.id) });
    if (isZero(answer?.result)) {
      yield put(cashoutActions.ruleCancelled());
      yield put(historyActions.changed());
    } else {
      yield put(cashoutActions.ruleCancelFailed(refusal(answer)));
    }
  } catch (err) {
    yield put(cashoutActions.ruleCancelFailed(failure(err)));
  }
}

/** The amounts on the bet list's Cash out buttons, one call for all offered bets. */
export function* listAmounts(deps: MemberDeps, action: PayloadAction<BetRecord[] | BetRecord | null>): SagaIterator {
  const loggedIn: boolean = yield select(selectLoggedIn);
  const records = Array.isArray(action.payload) ? action.payload : action.payload ? [action.payload] : [];
  const ids = records.filter(cashoutOffered).map((r) => String(r.id));
  if (!loggedIn || ids.length === 0) return;
  try {
    const amounts: Record<string, number | null> = yield call(calculate, deps, ids);
    yield put(cashoutActions.listAmountsLoaded(amounts));
  } catch {
    /* the buttons show no amount; the dialog asks again */
  }
}

/** A realtime tip about the open bet (an auto cash-out fired): its amount and rule again. */
function* betChanged(deps: MemberDeps, action: ReturnType<typeof realtimeActions.betNotified>): SagaIterator {
  const s: CashoutState = yield select(selectState);
  if (!s.bet || s.done || s.bet.id !== String(action.payload.id)) return;
  yield call(refreshAmount, deps, s.bet.id);
  yield call(loadRule, deps, s.bet.id);
}

export function* cashoutSaga(deps: MemberDeps = defaultMemberDeps): SagaIterator {
  yield takeLatest([cashoutActions.opened.type, cashoutActions.closed.type], function* (action: PayloadAction<unknown>) {
    if (action.type === cashoutActions.opened.type) yield call(dialogSession, deps, action as ReturnType<typeof cashoutActions.opened>);
  });
  yield takeLeading(cashoutActions.cashoutRequested.type, cashOut, deps);
  yield takeLeading(cashoutActions.ruleRequested.type, setRule, deps);
  yield takeLeading(cashoutActions.ruleCancelRequested.type, cancelRule, deps);
  yield takeLatest([historyActions.loaded.type, historyActions.detailLoaded.type], listAmounts, deps);
  yield takeLatest(realtimeActions.betNotified.type, betChanged, deps);
}

/** A fresh id for one cash-out attempt. */
function attemptId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * super_bet_answer {bet_id, accept} (docs/cashout-and-backoffice.md): accepted shows
 * 'Bet accepted.' (info), declined a warning; support's own answers arrive as
 * realtime tips and show the same notices.
 */
import { dec, money } from '../betslip/arith';
import { call, put, select, takeEvery } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import type { RootState } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { historyActions } from '../history/historySlice';
import { OUTCOME, SUPER_BET, type BetRecord } from '../history/model';
import { defaultMemberDeps, memberRequest, type MemberDeps } from '../live/memberRequest';
import { realtimeActions } from '../realtime/realtimeSlice';
import { uiActions } from '../shell/uiSlice';
import { busy, counterOfferActions, type AnswerFlags } from './counterOfferSlice';

export const ACCEPTED_NOTICE = 'betslip.bet_accepted';
export const DECLINED_NOTICE = 'counter.declined';
export const SUPPORT_DECLINED_NOTICE = 'counter.declined_by_support';

interface Answer {
  result: number | string;
  details?: { status?: number; super_bet_status?: number } | null;
}

const selectRecord = (betId: string) => (s: RootState): BetRecord | undefined =>
  [...s.history.list, ...s.history.recent.list, ...(s.history.detail.record ? [s.history.detail.record] : [])].find((r) => String(r.id) === betId);

/** The bet as the answer leaves it: accepted stands on the offered stake and odds; declined is Declined (-4). */
export function answeredRecord(accept: boolean, details: Answer['details'], record: BetRecord | undefined): Partial<BetRecord> {
  const offer = record?.counter_offer;
  if (!accept) return { outcome: Number(details?.status ?? OUTCOME.DECLINED), super_bet_status: SUPER_BET.DECLINED };
  const changes: Partial<BetRecord> = { outcome: Number(details?.status ?? OUTCOME.UNSETTLED), super_bet_status: SUPER_BET.ACCEPTED };
  if (offer?.amount !== undefined && offer.amount !== null && offer.amount !== '') changes.amount = String(offer.amount);
  if (offer?.price !== undefined && offer.price !== null && offer.price !== '') changes.k = String(offer.price);
  if (record && (changes.amount !== undefined || changes.k !== undefined)) {
    const amount = dec(changes.amount ?? record.amount);
    const k = dec(changes.k ?? record.k);
    // exact: amount x odds at the currency's places (floats showed 133.57 for 89.05 x 1.5)
    if (amount && k) changes.possible_win = money(amount.times(k));
  }
  return changes;
}

export function* answer(deps: MemberDeps, action: PayloadAction<{ betId: string; accept: boolean }>): SagaIterator {
  const { betId, accept } = action.payload;
  const flags: AnswerFlags | undefined = yield select((s: RootState) => s.counterOffer.byBet[betId]);
  if (busy(flags)) return;
  yield put(counterOfferActions.answerStarted(action.payload));
  let result: Answer;
  try {
    result = yield call(memberRequest, deps.request, 'super_bet_answer', { bet_id: Number(betId), accept });
    if (!(result?.result === 0 || result?.result === '0')) throw new Error(String(result?.result));
  } catch {
    yield put(counterOfferActions.answerFailed(action.payload));
    return;
  }
  yield put(counterOfferActions.answerSucceeded(action.payload));
  const record: BetRecord | undefined = yield select(selectRecord(betId));
  yield put(historyActions.betPatched({ id: betId, changes: answeredRecord(accept, result.details, record) }));
  yield put(accept ? uiActions.notified({ kind: 'info', key: ACCEPTED_NOTICE }) : uiActions.notified({ kind: 'warning', key: DECLINED_NOTICE }));
  yield put(balanceActions.refreshRequested());
  yield put(historyActions.changed());
}

/** Support accepted or declined the bet as asked. */
export function* supportAnswered(action: ReturnType<typeof realtimeActions.betNotified>): SagaIterator {
  if (action.payload.subject === 'super_bet_accepted') yield put(uiActions.notified({ kind: 'info', key: ACCEPTED_NOTICE }));
  if (action.payload.subject === 'super_bet_declined') yield put(uiActions.notified({ kind: 'warning', key: SUPPORT_DECLINED_NOTICE }));
}

export function* counterOfferSaga(deps: MemberDeps = defaultMemberDeps): SagaIterator {
  yield takeEvery(counterOfferActions.answerRequested.type, answer, deps);
  yield takeEvery(realtimeActions.betNotified.type, supportAnswered);
}

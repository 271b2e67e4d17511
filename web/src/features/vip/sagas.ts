/** vipsystem/* calls (docs/vip.md): detail and levels, experience and M currency lists, claims. */
import { all, call, put, select, takeLatest, takeLeading } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { apiPost, toErrorInfo } from '../../api';
import type { RootState } from '../../app/store';
import { sessionActions } from '../session/sessionSlice';
import type { LedgerRow, LevelInfo, McoinDetail, VipDetail } from './model';
import { vipActions } from './vipSlice';

function* loadDetail(): SagaIterator {
  try {
    const [detail, levels]: [VipDetail, { list: LevelInfo[] }] = yield all([
      call(apiPost, 'vipsystem/vipdetail', {}),
      call(apiPost, 'vipsystem/allvipdetail', {}),
    ]);
    yield put(vipActions.detailLoaded({ detail, levels: levels.list }));
    // the left menu's level name comes with userinfo: refresh it when the level moved
    const shown: string | undefined = yield select((s: RootState) => s.session.profile?.vipname);
    if (shown !== undefined && shown !== detail.vipname) yield put(sessionActions.profileRequested());
  } catch (err) {
    yield put(vipActions.detailFailed(toErrorInfo(err)));
  }
}

function* loadXp(): SagaIterator {
  try {
    const data: { list: LedgerRow[]; total: number } = yield call(apiPost, 'vipsystem/vipxporders', { page: 1, size: 100 });
    yield put(vipActions.xpLoaded(data));
  } catch {
    yield put(vipActions.xpFailed());
  }
}

function* loadMcoin(): SagaIterator {
  try {
    const data: McoinDetail = yield call(apiPost, 'vipsystem/mcoindetail', { page: 1, size: 100 });
    yield put(vipActions.mcoinLoaded(data));
  } catch {
    yield put(vipActions.mcoinFailed());
  }
}

function* claimGift(action: PayloadAction<number>): SagaIterator {
  try {
    const data: { amount: string } = yield call(apiPost, 'vipsystem/getgrowgift', { level: action.payload });
    yield put(vipActions.claimDone(data.amount));
  } catch (err) {
    yield put(vipActions.claimFailed(toErrorInfo(err)));
  }
  yield call(loadDetail);
}

function* claimRebate(): SagaIterator {
  try {
    const data: { amount: string } = yield call(apiPost, 'vipsystem/getvipbonus', {});
    yield put(vipActions.claimDone(data.amount));
  } catch (err) {
    yield put(vipActions.claimFailed(toErrorInfo(err)));
  }
  yield call(loadDetail);
}

export function* vipSaga(): SagaIterator {
  yield all([
    takeLatest(vipActions.detailRequested.type, loadDetail),
    takeLatest(vipActions.xpRequested.type, loadXp),
    takeLatest(vipActions.mcoinRequested.type, loadMcoin),
    takeLeading(vipActions.giftClaimRequested.type, claimGift),
    takeLeading(vipActions.rebateClaimRequested.type, claimRebate),
  ]);
}

import { call, delay, put, race, take } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { ApiError, NOT_LOGGED_IN, getJson, toErrorInfo } from '../../api';
import { configActions } from '../config/configSlice';
import type { SiteConfig } from '../config/types';
import { balanceActions, type BalanceInfo } from './balanceSlice';

/** Balance poll, spec section 9; the skin's balance_poll_ms overrides it. */
export const BALANCE_POLL_MS = 60_000;
/** Development endpoint until the request layer carries /api/user/getbalance. */
export const BALANCE_URL = '/api/dev/balance';

const isNotLoggedIn = (err: unknown) =>
  err instanceof ApiError && (err.status === NOT_LOGGED_IN || err.httpStatus === 404);

/** One fetch. Returns false when the visitor is not logged in. */
export function* fetchBalance(): SagaIterator<boolean> {
  yield put(balanceActions.fetchStarted());
  try {
    const info: BalanceInfo = yield call(getJson, BALANCE_URL);
    yield put(balanceActions.fetched(info));
    return true;
  } catch (err) {
    if (isNotLoggedIn(err)) {
      yield put(balanceActions.notLoggedIn());
      return false;
    }
    yield put(balanceActions.fetchFailed(toErrorInfo(err)));
    return true; // a network hiccup: keep polling
  }
}

/**
 * Polls while logged in; a refresh request cuts the wait short. A guest is not
 * polled: a login dispatches refreshRequested, which wakes the watcher.
 */
export function* balanceWatcher(pollMs: number): SagaIterator {
  for (;;) {
    const member: boolean = yield call(fetchBalance);
    if (member) {
      yield race({ tick: delay(pollMs), refresh: take(balanceActions.refreshRequested.type) });
    } else {
      yield take(balanceActions.refreshRequested.type);
    }
  }
}

export function* balanceSaga(): SagaIterator {
  const { payload }: PayloadAction<SiteConfig> = yield take(configActions.loaded.type);
  const pollMs = payload.balance_poll_ms > 0 ? payload.balance_poll_ms : BALANCE_POLL_MS;
  yield call(balanceWatcher, pollMs);
}

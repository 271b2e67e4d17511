import { combineSlices, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware, { type Saga, type Task } from 'redux-saga';
import config from '../features/config/configSlice';
import i18n from '../features/i18n/i18nSlice';
import balance from '../features/balance/balanceSlice';
import session from '../features/session/sessionSlice';
import ui from '../features/shell/uiSlice';
import forms from '../features/account/formsSlice';
import live from '../features/live/liveSlice';
import sport from '../features/sport/sportSlice';
import selections from '../features/selections/selectionsSlice';
import betslip from '../features/betslip/betslipSlice';
import history from '../features/history/historySlice';
import realtime from '../features/realtime/realtimeSlice';
import cashout from '../features/cashout/cashoutSlice';
import counterOffer from '../features/counteroffer/counterOfferSlice';
import { rootSaga } from './rootSaga';

/**
 * Slices of route chunks that load on first use (the back office): each declares
 * itself here by module augmentation and injects itself into `rootReducer`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LazyLoadedSlices {}

export const rootReducer = combineSlices({
  config, i18n, balance, session, ui, forms, live, sport, selections, betslip, history, realtime, cashout, counterOffer,
}).withLazyLoadedSlices<LazyLoadedSlices>();
export type RootState = ReturnType<typeof rootReducer>;

/** A fresh store with its sagas running; tests build their own the same way. */
export function createAppStore(preloadedState?: Partial<RootState>) {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) => getDefault({ thunk: false }).concat(sagaMiddleware),
  });
  sagaMiddleware.run(rootSaga);
  /** Starts the saga of a route chunk loaded later (the back office). */
  const runSaga = (saga: Saga): Task => sagaMiddleware.run(saga);
  return Object.assign(store, { runSaga });
}

export type AppStore = ReturnType<typeof createAppStore>;
export type AppDispatch = AppStore['dispatch'];

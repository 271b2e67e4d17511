import { combineReducers, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
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
import { rootSaga } from './rootSaga';

export const rootReducer = combineReducers({ config, i18n, balance, session, ui, forms, live, sport, selections, betslip, history, realtime });
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
  return store;
}

export type AppStore = ReturnType<typeof createAppStore>;
export type AppDispatch = AppStore['dispatch'];

import { all, fork } from 'redux-saga/effects';
import type { SagaIterator } from 'redux-saga';
import { configSaga } from '../features/config/sagas';
import { i18nSaga } from '../features/i18n/sagas';
import { balanceSaga } from '../features/balance/sagas';
import { sessionSaga } from '../features/session/sagas';
import { formsSaga } from '../features/account/sagas';
import { liveSaga } from '../features/live/sagas';
import { sportSaga } from '../features/sport/sagas';
import { betslipSaga } from '../features/betslip/sagas';
import { historySaga } from '../features/history/sagas';
import { realtimeSaga } from '../features/realtime/sagas';
import { cashoutSaga } from '../features/cashout/sagas';
import { counterOfferSaga } from '../features/counteroffer/sagas';

export function* rootSaga(): SagaIterator {
  yield all([fork(configSaga), fork(i18nSaga), fork(balanceSaga), fork(sessionSaga), fork(formsSaga), fork(liveSaga), fork(sportSaga),
    fork(betslipSaga), fork(historySaga), fork(realtimeSaga), fork(cashoutSaga), fork(counterOfferSaga)]);
}

import { configureStore, type Middleware, type UnknownAction } from '@reduxjs/toolkit';
import { act, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { balanceActions } from '../balance/balanceSlice';
import { historyActions } from '../history/historySlice';
import type { BetRecord } from '../history/model';
import { i18nActions } from '../i18n/i18nSlice';
import type { MemberDeps } from '../live/memberRequest';
import { realtimeActions } from '../realtime/realtimeSlice';
import { sessionActions } from '../session/sessionSlice';
import { CounterOffer } from './CounterOffer';
import { counterOfferActions } from './counterOfferSlice';
import { ACCEPTED_NOTICE, DECLINED_NOTICE, SUPPORT_DECLINED_NOTICE, counterOfferSaga } from './sagas';

const eng = readSkin('languages/eng.json');
const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };

const onHold = (extra: Partial<BetRecord> = {}): BetRecord => ({
  id: 77, type: 1, date_time: 1_800_000_000, amount: '100.00', k: '2.000', possible_win: '200.00', outcome: -5,
  super_bet_status: 0, currency: 'CNY', counter_offer: { amount: '50.00', price: 2.1, reason: 'Limit for this market', at: 1 }, ...extra,
});

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void; params: Record<string, unknown> };

/** A store with the counter-offer saga; each super_bet_answer waits until the test settles it. */
function start() {
  const pending: Pending[] = [];
  const actions: UnknownAction[] = [];
  const deps: MemberDeps = {
    request: <T,>(command: string, params: Record<string, unknown>) => {
      if (command !== 'super_bet_answer') return Promise.reject(new Error(command));
      return new Promise<T>((resolve, reject) => pending.push({ resolve: resolve as (v: unknown) => void, reject, params }));
    },
  };
  const recorder: Middleware = () => (next) => (action) => (actions.push(action as UnknownAction), next(action));
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga).concat(recorder),
  });
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  const task = saga.run(counterOfferSaga, deps);
  return { store, pending, actions, task, flags: () => store.getState().counterOffer.byBet['77'] };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('counter-offer answer saga', () => {
  it('accept: super_bet_answer {bet_id, accept: true}, its own loading flag, Bet accepted. (info), history and balance', async () => {
    const { store, pending, actions, flags, task } = start();
    store.dispatch(historyActions.loaded([onHold()]));
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: true }));
    await vi.advanceTimersByTimeAsync(0);
    expect(pending.map((p) => p.params)).toEqual([{ bet_id: 77, accept: true }]);
    expect(flags()).toEqual({ accepting: true, acceptFailed: false, declining: false, declineFailed: false });
    pending[0]!.resolve({ result: 0, details: { bet_id: 77, status: 0, super_bet_status: 1 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(flags()).toBeUndefined();
    expect(store.getState().ui.notice).toMatchObject({ kind: 'info', key: ACCEPTED_NOTICE });
    // the bet stands on the offered terms at once, before the history loads again
    expect(store.getState().history.list[0]).toMatchObject({ outcome: 0, super_bet_status: 1, amount: '50.00', k: '2.1', possible_win: '105.00' });
    expect(actions.map((a) => a.type)).toEqual(expect.arrayContaining([historyActions.changed.type, balanceActions.refreshRequested.type]));
    task.cancel();
  });

  it('decline: a warning notice', async () => {
    const { store, pending, flags, task } = start();
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: false }));
    await vi.advanceTimersByTimeAsync(0);
    expect(pending[0]!.params).toEqual({ bet_id: 77, accept: false });
    expect(flags()).toMatchObject({ declining: true, accepting: false });
    pending[0]!.resolve({ result: 0, details: { bet_id: 77, status: -4, super_bet_status: -1 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().ui.notice).toMatchObject({ kind: 'warning', key: DECLINED_NOTICE });
    expect(store.getState().history.patches['77']!.changes).toEqual({ outcome: -4, super_bet_status: -1 });
    task.cancel();
  });

  it('failures set the failure flag of that action only: a 1027 answer or a dropped connection', async () => {
    const { store, pending, flags, task } = start();
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: true }));
    await vi.advanceTimersByTimeAsync(0);
    pending[0]!.resolve({ result: 1027, result_text: 'No counter offer to answer', details: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(flags()).toEqual({ accepting: false, acceptFailed: true, declining: false, declineFailed: false });
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: false }));
    await vi.advanceTimersByTimeAsync(0);
    pending[1]!.reject(new Error('websocket closed'));
    await vi.advanceTimersByTimeAsync(0);
    expect(flags()).toEqual({ accepting: false, acceptFailed: true, declining: false, declineFailed: true });
    expect(store.getState().ui.notice).toBeNull();
    task.cancel();
  });

  it('while one answer is under way, neither is sent again', async () => {
    const { store, pending, task } = start();
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: true }));
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: false }));
    store.dispatch(counterOfferActions.answerRequested({ betId: '77', accept: true }));
    await vi.advanceTimersByTimeAsync(0);
    expect(pending).toHaveLength(1);
    task.cancel();
  });

  it("support's answer by realtime tip: accepted is an info notice, declined a warning", async () => {
    const { store, task } = start();
    store.dispatch(realtimeActions.betNotified({ subject: 'super_bet_accepted', id: '77' }));
    expect(store.getState().ui.notice).toMatchObject({ kind: 'info', key: ACCEPTED_NOTICE });
    store.dispatch(realtimeActions.betNotified({ subject: 'super_bet_declined', id: '77' }));
    expect(store.getState().ui.notice).toMatchObject({ kind: 'warning', key: SUPPORT_DECLINED_NOTICE });
    task.cancel();
  });
});

describe('counter-offer block', () => {
  const renderBlock = (record: BetRecord) => {
    const run = start();
    render(<Provider store={run.store}><CounterOffer record={record} /></Provider>);
    return run;
  };

  it("an on-hold super bet without an offer shows 'Waiting for confirmation'", () => {
    const { task } = renderBlock(onHold({ counter_offer: null }));
    expect(screen.getByTestId('counter-offer-waiting')).toHaveTextContent('Waiting for confirmation');
    expect(screen.queryByTestId('counter-accept')).not.toBeInTheDocument();
    task.cancel();
  });

  it('shows nothing once the bet is answered or for other bets', () => {
    const { task } = renderBlock(onHold({ outcome: 0, super_bet_status: 1 }));
    expect(screen.queryByTestId('counter-offer')).not.toBeInTheDocument();
    expect(screen.queryByTestId('counter-offer-waiting')).not.toBeInTheDocument();
    task.cancel();
  });

  it('shows the offered stake, odds and reason; both buttons wait while either request loads; failures show their message', async () => {
    const { pending, task } = renderBlock(onHold());
    expect(screen.getByTestId('counter-offer-amount')).toHaveTextContent('50.00 CNY');
    expect(screen.getByTestId('counter-offer-price')).toHaveTextContent('2.10');
    expect(screen.getByTestId('counter-offer-reason')).toHaveTextContent('Limit for this market');
    const accept = screen.getByTestId('counter-accept');
    const decline = screen.getByTestId('counter-decline');
    expect(accept).toBeEnabled();
    await act(async () => accept.click());
    expect(accept).toBeDisabled();
    expect(decline).toBeDisabled();
    expect(accept).toHaveAttribute('aria-busy', 'true');
    expect(decline).toHaveAttribute('aria-busy', 'false');
    await act(async () => {
      pending[0]!.resolve({ result: 1027 });
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByTestId('counter-accept-failed')).toHaveTextContent('Cannot accept counter offer.');
    expect(accept).toBeEnabled();
    await act(async () => decline.click());
    expect(accept).toBeDisabled();
    expect(decline).toBeDisabled();
    await act(async () => {
      pending[1]!.resolve({ result: 1027 });
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByTestId('counter-decline-failed')).toHaveTextContent('Cannot decline counter offer.');
    task.cancel();
  });
});

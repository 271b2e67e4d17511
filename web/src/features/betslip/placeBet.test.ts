import { configureStore, type Middleware } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SwarmError } from '../../api/swarm';
import { rootReducer } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import { sessionActions } from '../session/sessionSlice';
import { betslipActions } from './betslipSlice';
import { MSG } from './calc';
import {
  BET_ACCEPTED_MS, CLOSE_AFTER_BET_MS, HELD_NOTICE, QUICK_BET_NOTICE_MS, SUPER_BET_SUGGESTED, placeQueue, type BetslipDeps, type DoBetAnswer,
} from './sagas';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const pick = (eventId: number, price = '2.000'): Selection => ({
  gameId: eventId, marketId: eventId * 10, eventId, price, base: null, marketName: 'Match Result', eventName: 'W1',
  team1: 'A', team2: 'B', isLive: false,
});
const OK: DoBetAnswer = {
  result: 'OK', result_text: null,
  details: { bet_id: 42, type: 1, amount: '10.00', k: '2.000', events: [{ event_id: 1, event_name: 'A', home_team: 'A', away_team: 'B', start_date: 1_800_000_000 }] },
};

type Call = { command: string; params: Record<string, unknown> };

/** A store with only the place queue running; `answer` scripts the Swarm commands. */
function start(answer: (call: Call, n: number) => Promise<unknown> | unknown, { loggedIn = true } = {}) {
  const calls: Call[] = [];
  const actions: string[] = [];
  const deps: BetslipDeps = {
    request: async <T,>(command: string, params: Record<string, unknown>) => {
      calls.push({ command, params });
      return (await answer({ command, params }, calls.length)) as T;
    },
  };
  const recorder: Middleware = () => (next) => (action) => (actions.push((action as { type: string }).type), next(action));
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga)
      .concat(recorder),
  });
  if (loggedIn) {
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    store.dispatch(balanceActions.fetched({ balance: '1000.00', bonus_balance: '0', bonus_win_balance: '0', frozen_balance: '0', currency: 'CNY' }));
  }
  const task = saga.run(placeQueue, deps);
  return { store, calls, actions, task };
}

function fill(store: ReturnType<typeof start>['store'], ids = [1], stake = '10') {
  store.dispatch(betslipActions.opened());
  for (const id of ids) store.dispatch(selectionsActions.toggled(pick(id)));
  store.dispatch(betslipActions.stakeChanged(stake));
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('place-bet saga', () => {
  it('a bet taken at another price than the one sent says LIMIT_ERROR: Odds have been corrected', async () => {
    const corrected = { ...OK, details: { ...(OK.details as object), events: [{ event_id: 1, event_name: 'A', price: '2.150' }] } };
    const { store, task } = start(() => corrected);
    store.dispatch(betslipActions.acceptModeChosen(1));
    fill(store, [1], '10');
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().ui.notice).toMatchObject({ key: 'error.limit_error', kind: 'warning' });
    task.cancel();
    const same = start(() => ({ ...OK, details: { ...(OK.details as object), events: [{ event_id: 1, event_name: 'A', price: '2.00' }] } }));
    fill(same.store, [1], '10');
    same.store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(same.store.getState().ui.notice).toMatchObject({ key: 'betslip.bet_accepted' });
    same.task.cancel();
  });

  it('OK: do_bet params, success popup, balance refresh, 5 s toast, slip closes after 500 ms', async () => {
    const { store, calls, actions, task } = start(() => OK);
    fill(store, [1, 2], '10');
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([{ command: 'do_bet', params: {
      type: 2, mode: 0, amount: 10, each_way: false, source: 42, odd_type: 0, is_offer: false,
      bets: [{ event_id: 1, price: 2, banker: false }, { event_id: 2, price: 2, banker: false }],
    } }]);
    expect(store.getState().betslip).toMatchObject({ betState: 'accepted', success: { bet_id: 42 }, open: true });
    expect(actions).toContain(balanceActions.refreshRequested.type);
    expect(store.getState().ui.notice).toMatchObject({ key: 'betslip.bet_accepted', ms: BET_ACCEPTED_MS });
    await vi.advanceTimersByTimeAsync(CLOSE_AFTER_BET_MS);
    expect(store.getState().betslip).toMatchObject({ open: false, events: [], stake: '', success: { bet_id: 42 } });
    expect(store.getState().selections.items).toEqual([]);
    task.cancel();
  });

  it('SP: price -1 for the pick at the starting price, even after its price moved; the answer has no k or possible win', async () => {
    const spOk: DoBetAnswer = {
      result: 'OK', result_text: null,
      details: { bet_id: 43, type: 2, amount: '10.00', k: null, possible_win: null, events: [{ event_id: 1, event_name: 'A' }, { event_id: 3, event_name: 'Horse 3', price: '-1' }] },
    };
    const { store, calls, task } = start(() => spOk);
    fill(store, [1], '10');
    store.dispatch(selectionsActions.toggled({ ...pick(3, '6.000'), marketName: 'Winner', eventName: 'Horse 3', team2: '', spAllowed: true }));
    store.dispatch(betslipActions.spToggled({ eventId: 3, on: true }));
    store.dispatch(betslipActions.feedUpdated({ events: { 1: { price: '2.000', base: null, blocked: false }, 3: { price: '7.5', base: null, blocked: false } }, ready: true }));
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([{ command: 'do_bet', params: {
      type: 2, mode: 0, amount: 10, each_way: false, source: 42, odd_type: 0, is_offer: false,
      bets: [{ event_id: 1, price: 2, banker: false }, { event_id: 3, price: -1, banker: false }],
    } }]);
    expect(store.getState().betslip).toMatchObject({ betState: 'accepted', success: { bet_id: 43, k: null, possible_win: null } });
    task.cancel();
  });

  it('SP is not offered where the market has no SP: the price is sent', async () => {
    const { store, calls, task } = start(() => OK);
    fill(store, [1], '10');
    store.dispatch(betslipActions.spToggled({ eventId: 1, on: true }));
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[0]!.params.bets).toEqual([{ event_id: 1, price: 2, banker: false }]);
    task.cancel();
  });

  it('1800: new prices from details and the price-changed message with Accept Changes', async () => {
    const { store, task } = start(() => ({ result: 1800, result_text: 'The odds have changed', details: [{ event_id: 1, new_price: '1.85' }] }));
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    const slip = store.getState().betslip;
    expect(slip.events[0]).toMatchObject({ price: '1.85', initialPrice: '2.000' });
    expect(slip.message).toEqual({ key: MSG.priceChanged, action: 'accept' });
    expect(slip.betState).toBe('failed');
    store.dispatch(betslipActions.changesAccepted());
    expect(store.getState().betslip.events[0]!.initialPrice).toBe('1.85');
    expect(store.getState().betslip.message).toBeNull();
    task.cancel();
  });

  it('2400: Insufficient balance with the deposit link', async () => {
    const { store, task } = start(() => ({ result: 2400, result_text: 'Insufficient balance' }));
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.message).toEqual({ key: 'bet.insufficient_balance', action: 'deposit' });
    task.cancel();
  });

  it('12: the login message and the login popup', async () => {
    const { store, actions, task } = start(() => ({ result: 12, result_text: 'Not logged in' }));
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.message).toEqual({ key: MSG.login, action: 'login' });
    expect(actions).toContain('ui/popupRequested');
    task.cancel();
  });

  it('code 12 from the Swarm session: restore_login and one retry', async () => {
    const { store, calls, task } = start(({ command }, n) => {
      if (command === 'do_bet' && n === 1) throw new SwarmError(12, 'Not logged in');
      return command === 'do_bet' ? OK : {};
    });
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.command)).toEqual(['do_bet', 'restore_login', 'do_bet']);
    expect(calls[1]!.params).toEqual({ user_id: '7', auth_token: 'tok' });
    expect(store.getState().betslip.betState).toBe('accepted');
    task.cancel();
  });

  it('a visitor gets the login message without a call', async () => {
    const { store, calls, actions, task } = start(() => OK, { loggedIn: false });
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([]);
    expect(store.getState().betslip.message).toMatchObject({ key: MSG.login });
    expect(actions).toContain('ui/popupRequested');
    task.cancel();
  });

  it('a second submit waits for the first answer', async () => {
    const resolvers: Array<(a: DoBetAnswer) => void> = [];
    const { store, calls, task } = start(() => new Promise<DoBetAnswer>((r) => resolvers.push(r)));
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(1);
    expect(store.getState().betslip.betState).toBe('loading');
    resolvers[0]!({ result: 1800, details: [{ event_id: 1, new_price: '2.000' }] });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(2); // the waiting submit runs now
    resolvers[1]!(OK);
    await vi.advanceTimersByTimeAsync(CLOSE_AFTER_BET_MS);
    expect(store.getState().betslip.success).toMatchObject({ bet_id: 42 });
    // a third submit after the accepted bet finds nothing to place
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(2);
    task.cancel();
  });

  it('a lost connection leaves the slip with WEBSOCKET_DISCONNECTED, not the socket text', async () => {
    const { store, task } = start(() => Promise.reject(new Error('websocket closed')));
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip).toMatchObject({ betState: 'failed', message: { key: 'error.websocket_disconnected' } });
    expect(store.getState().betslip.events).toHaveLength(1);
    task.cancel();
  });

  it('quick bet: places the tapped pick alone at the quick stake, then drops it', async () => {
    const { store, calls, task } = start(() => OK);
    store.dispatch(betslipActions.quickBetToggled(true));
    store.dispatch(betslipActions.quickBetStakeSaved('20'));
    store.dispatch(selectionsActions.toggled(pick(3, '1.500')));
    store.dispatch(betslipActions.quickPlaceRequested(3));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[0]!.params).toMatchObject({ type: 1, amount: 20, bets: [{ event_id: 3, price: 1.5, banker: false }] });
    expect(store.getState().betslip.events).toEqual([]);
    expect(store.getState().betslip.quickBetNotifications).toMatchObject([{ kind: 'ok', key: 'betslip.bet_accepted' }]);
    await vi.advanceTimersByTimeAsync(QUICK_BET_NOTICE_MS);
    expect(store.getState().betslip.quickBetNotifications).toEqual([]);
    task.cancel();
  });

  it('1510 with details.super_bet: the 1510_sb message; its action sends the same slip again with mode -1', async () => {
    const { store, calls, task } = start(({ params }) => (params.mode === -1
      ? { result: 'OK', result_text: null, details: { ...(OK.details as object), status: -5 } }
      : { result: 1510, result_text: 'The bet amount exceeds your current limit', details: { super_bet: true } }));
    fill(store, [1], '500');
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.message).toEqual({ key: SUPER_BET_SUGGESTED, action: 'superBet' });
    store.dispatch(betslipActions.superBetPlaceRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.params.mode)).toEqual([0, -1]);
    expect(calls[1]!.params).toMatchObject({ type: 1, amount: 500, bets: [{ event_id: 1, price: 2 }] });
    expect(store.getState().betslip.superBet).toBe(false); // the next slip is an ordinary one again
    task.cancel();
  });

  it('1510 without super_bet is the plain limit message', async () => {
    const { store, task } = start(() => ({ result: 1510, result_text: 'The bet amount exceeds your current limit', details: null }));
    fill(store);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.message).toEqual({ key: 'error.1510', args: [] });
    task.cancel();
  });

  it('a super bet placed On Hold (details.status -5): the keep-the-order warning, no success popup, the slip clears', async () => {
    const { store, actions, task } = start(() => ({ result: 'OK', result_text: null, details: { ...(OK.details as object), status: -5 } }));
    fill(store);
    store.dispatch(betslipActions.superBetToggled(true));
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.success).toBeNull();
    expect(store.getState().ui.notice).toMatchObject({ kind: 'warning', key: HELD_NOTICE });
    expect(actions).toEqual(expect.arrayContaining([balanceActions.refreshRequested.type, 'history/changed']));
    await vi.advanceTimersByTimeAsync(CLOSE_AFTER_BET_MS);
    expect(store.getState().betslip).toMatchObject({ open: false, events: [], betState: 'idle' });
    task.cancel();
  });
});

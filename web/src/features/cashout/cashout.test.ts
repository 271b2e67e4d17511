import { configureStore, type Middleware, type UnknownAction } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { historyActions } from '../history/historySlice';
import type { BetRecord } from '../history/model';
import { liveActions } from '../live/liveSlice';
import type { MemberDeps } from '../live/memberRequest';
import { realtimeActions } from '../realtime/realtimeSlice';
import { sessionActions } from '../session/sessionSlice';
import { autoBounds, autoErrors, ceil2, clampPartial, floor2, money2, partialBounds, partialError, sanitizeAmount } from './calc';
import { cashoutActions, initialState } from './cashoutSlice';
import { PRICE_SETTLE_MS, REFRESH_MS, cashoutSaga } from './sagas';
import { cashoutPhase, selectCashoutView } from './selectors';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };

const record = (extra: Partial<BetRecord> = {}): BetRecord => ({
  id: 55, type: 1, date_time: 1_800_000_000, amount: '10.00', k: '2.500', possible_win: '25.00', payout: '0.00', outcome: 0,
  cash_out: true, currency: 'CNY', events: [{ selection_id: 901, event_name: 'A', coeficient: '2.50', outcome: 3 }], ...extra,
});

type Call = { command: string; params: Record<string, unknown> };
type Script = Partial<Record<string, (params: Record<string, unknown>, n: number) => unknown>>;

const calcAnswer = (amount: number | null, id = 55) => ({ result: 0, details: [{ Id: id, CashoutAmount: amount }] });

/** A store with the cash-out saga; `script` answers the Swarm commands by name. */
function start(script: Script) {
  const calls: Call[] = [];
  const actions: UnknownAction[] = [];
  const deps: MemberDeps = {
    request: async <T,>(command: string, params: Record<string, unknown>) => {
      calls.push({ command, params });
      const answer = script[command];
      if (!answer) throw new Error(`unexpected ${command}`);
      return (await answer(params, calls.filter((c) => c.command === command).length)) as T;
    },
  };
  const recorder: Middleware = () => (next) => (action) => (actions.push(action as UnknownAction), next(action));
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga).concat(recorder),
  });
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  const task = saga.run(cashoutSaga, deps);
  const commands = (name: string) => calls.filter((c) => c.command === name);
  const types = () => actions.map((a) => a.type);
  return { store, calls, commands, types, task, cashout: () => store.getState().cashout };
}

const base = { calculate_cashout_amount: () => calcAnswer(12.3), get_bet_auto_cashout: () => ({ result: 0, details: null }) };

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('cash-out rules', () => {
  it('rounds bounds without float noise: the auto minimum up, the maximum down', () => {
    expect(ceil2(12.3 * 1.01)).toBe(12.43);
    expect(ceil2(10 * 1.01)).toBe(10.1);
    expect(floor2(25 * 0.99)).toBe(24.75);
    expect(floor2(19.999)).toBe(19.99);
    expect(autoBounds(12.3, 25)).toEqual({ min: 12.43, max: 24.75 });
    expect(autoBounds(5, 20)).toEqual({ min: 5.05, max: 19.8 });
  });

  it('the partial slider runs from 0.01 to the current amount; more is refused', () => {
    expect(partialBounds(12.3)).toEqual({ min: 0.01, max: 12.3 });
    expect(partialError('12.30', 12.3)).toBeNull();
    expect(partialError('0.01', 12.3)).toBeNull();
    expect(partialError('12.31', 12.3)).toEqual({ key: 'validation.max_amount', args: ['12.30'] });
    expect(partialError('0', 12.3)).toEqual({ key: 'validation.min_amount', args: ['0.01'] });
    expect(partialError('', 12.3)).toEqual({ key: 'validation.required' });
    expect(partialError('abc', 12.3)).toMatchObject({ key: 'validation.min_amount' });
  });

  it('a partial amount above a new, lower amount is brought down to it', () => {
    expect(clampPartial('10.00', 8.4)).toBe('8.40');
    expect(clampPartial('5.00', 8.4)).toBe('5.00');
    expect(clampPartial('', 8.4)).toBe('');
  });

  it('the auto trigger must lie within its bounds; the partial payout at most the trigger', () => {
    const b = { min: 12.43, max: 24.75 };
    expect(autoErrors('12.43', '', b)).toEqual({ trigger: null, partial: null });
    expect(autoErrors('24.75', '24.75', b)).toEqual({ trigger: null, partial: null });
    expect(autoErrors('12.42', '', b).trigger).toEqual({ key: 'validation.min_amount', args: ['12.43'] });
    expect(autoErrors('24.76', '', b).trigger).toEqual({ key: 'validation.max_amount', args: ['24.75'] });
    expect(autoErrors('', '', b).trigger).toEqual({ key: 'validation.required' });
    expect(autoErrors('15', '15.01', b).partial).toEqual({ key: 'validation.max_amount', args: ['15.00'] });
    expect(autoErrors('15', '0', b).partial).toMatchObject({ key: 'validation.min_amount' });
  });

  it('keeps typed amounts to digits, one point and two places', () => {
    expect(sanitizeAmount('12,345.678')).toBe('12345.67');
    expect(sanitizeAmount('1.2.3')).toBe('1.23');
    expect(sanitizeAmount('abc')).toBe('');
  });
});

describe('cash-out dialog states', () => {
  const opened = () => rootReducer(undefined, cashoutActions.opened(record())).cashout;

  it('loading until the first amount, then normal; null means not cashable', () => {
    const s = opened();
    expect(cashoutPhase(s)).toBe('loading');
    expect(cashoutPhase({ ...s, amount: 12.3, calc: 'ready' })).toBe('normal');
    expect(cashoutPhase({ ...s, amount: null, calc: 'ready' })).toBe('notCashable');
    expect(cashoutPhase({ ...s, amount: 12.3, calc: 'ready', notAvailable: true })).toBe('notCashable');
    expect(cashoutPhase({ ...s, amount: 12.3, done: { amount: '12.30', remainingStake: '0.00', status: 5 } })).toBe('done');
    expect(cashoutPhase(initialState)).toBe('closed');
  });

  it('an auto rule opens on the Auto way with the rule shown (auto-rule active)', () => {
    const s = rootReducer(undefined, cashoutActions.opened(record({ auto_cashout: { MinAmount: '15.00', PartialAmount: null } }))).cashout;
    expect(s.way).toBe('auto');
    expect(cashoutPhase({ ...s, amount: 12.3, calc: 'ready' })).toBe('ruleActive');
    expect(cashoutPhase({ ...s, amount: 12.3, calc: 'ready', way: 'manual' })).toBe('normal');
  });

  it('the view carries the slider and auto bounds of the current amount', () => {
    const state = rootReducer(rootReducer(undefined, cashoutActions.opened(record())), cashoutActions.amountLoaded({ id: '55', amount: 12.3 }));
    expect(selectCashoutView(state)).toEqual({
      phase: 'normal', partial: { min: 0.01, max: 12.3 }, auto: { min: 12.43, max: 24.75 }, autoPossible: true,
    });
  });

  it('takes only open selections for the price subscription, and the record remaining stake', () => {
    const s = rootReducer(undefined, cashoutActions.opened(record({
      remaining_stake: '4.50',
      events: [{ selection_id: 1, outcome: 3 }, { selection_id: 2, outcome: 1 }, { selection_id: 3 }],
    }))).cashout;
    expect(s.bet).toMatchObject({ id: '55', eventIds: [1, 3], remainingStake: '4.50', possibleWin: 25, currency: 'CNY' });
  });
});

describe('cash-out saga', () => {
  it('on open: the rule once, the amount now and at least every 5 s; a subscription to the bet prices', async () => {
    const { store, commands, cashout, task } = start(base);
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('get_bet_auto_cashout')).toEqual([{ command: 'get_bet_auto_cashout', params: { bet_id: 55 } }]);
    expect(commands('calculate_cashout_amount')).toEqual([{ command: 'calculate_cashout_amount', params: { bet_ids: [55] } }]);
    expect(cashout()).toMatchObject({ amount: 12.3, calc: 'ready', ruleStatus: 'ready', rule: null });
    expect(Object.values(store.getState().live.subs)).toMatchObject([{ refs: 1 }]);
    await vi.advanceTimersByTimeAsync(REFRESH_MS - 1);
    expect(commands('calculate_cashout_amount')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(commands('calculate_cashout_amount')).toHaveLength(2);
    store.dispatch(cashoutActions.closed());
    await vi.advanceTimersByTimeAsync(REFRESH_MS * 3);
    expect(commands('calculate_cashout_amount')).toHaveLength(2);
    expect(Object.values(store.getState().live.subs)).toMatchObject([{ refs: 0 }]);
    task.cancel();
  });

  it('asks again when a price of the bet moves, without waiting for the 5 s', async () => {
    let amount = 12.3;
    const { store, commands, cashout, task } = start({ ...base, calculate_cashout_amount: () => calcAnswer(amount) });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    const key = Object.keys(store.getState().live.subs)[0]!;
    const feed = (price: number) => ({ sport: { 1: { region: { 2: { competition: { 3: { game: { 4: { market: { 5: { event: { 901: { id: 901, price } } } } } } } } } } } } });
    store.dispatch(liveActions.subscribed({ key, subid: 's1', data: feed(2.5) }));
    await vi.advanceTimersByTimeAsync(PRICE_SETTLE_MS);
    const before = commands('calculate_cashout_amount').length;
    amount = 11.1;
    store.dispatch(liveActions.pushed({ s1: { sport: { 1: { region: { 2: { competition: { 3: { game: { 4: { market: { 5: { event: { 901: { price: 2.7 } } } } } } } } } } } } } }));
    await vi.advanceTimersByTimeAsync(PRICE_SETTLE_MS);
    expect(commands('calculate_cashout_amount').length).toBe(before + 1);
    expect(cashout().amount).toBe(11.1);
    task.cancel();
  });

  it('a null amount is the not-cashable state', async () => {
    const { store, cashout, task } = start({ ...base, calculate_cashout_amount: () => calcAnswer(null) });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    expect(cashoutPhase(cashout())).toBe('notCashable');
    task.cancel();
  });

  it('Ok: cashout {bet_id, price}, Cashout done, the balance and the history refresh, the refresh stops', async () => {
    const { store, commands, cashout, types, task } = start({
      ...base,
      cashout: () => ({ result: 'Ok', details: { bet_id: 55, cash_out_amount: '12.30', remaining_stake: '0.00', status: 5 } }),
    });
    store.dispatch(historyActions.loaded([record()]));
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('cashout')).toEqual([{ command: 'cashout', params: { bet_id: 55, price: 12.3, request_id: expect.any(String) } }]);
    // the list shows it as cashed out before it loads again
    expect(store.getState().history.list[0]).toMatchObject({ id: 55, outcome: 5, payout: '12.30' });
    expect(cashout().done).toEqual({ amount: '12.30', remainingStake: '0.00', status: 5 });
    expect(cashoutPhase(cashout())).toBe('done');
    expect(types()).toEqual(expect.arrayContaining([balanceActions.refreshRequested.type, historyActions.changed.type]));
    const calcs = commands('calculate_cashout_amount').length;
    await vi.advanceTimersByTimeAsync(REFRESH_MS * 2);
    expect(commands('calculate_cashout_amount')).toHaveLength(calcs);
    task.cancel();
  });

  it('partial: sends partial_price; an amount above the current one is not sent', async () => {
    const { store, commands, cashout, task } = start({
      ...base, cashout: () => ({ result: 'Ok', details: { bet_id: 55, cash_out_amount: '5.00', remaining_stake: '5.93', status: 0 } }),
    });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.scopeChosen('partial'));
    expect(cashout().partial).toBe('6.15'); // half, to start from
    store.dispatch(cashoutActions.partialChanged('12.31'));
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('cashout')).toHaveLength(0);
    expect(cashout().error).toEqual({ key: 'validation.max_amount', args: ['12.30'] });
    store.dispatch(cashoutActions.partialChanged('5.00'));
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('cashout')).toEqual([{ command: 'cashout', params: { bet_id: 55, price: 12.3, partial_price: 5, request_id: expect.any(String) } }]);
    expect(cashout().done).toEqual({ amount: '5.00', remainingStake: '5.93', status: 0 });
    task.cancel();
  });

  it("Fail: 'Cannot cash out' with details.new_price, accepted with one tap at that price", async () => {
    const { store, commands, cashout, task } = start({
      ...base,
      cashout: (_p, n) => (n === 1
        ? { result: 'Fail', details: { new_price: 11.8, price: 11.8 } }
        : { result: 'Ok', details: { bet_id: 55, cash_out_amount: '11.80', remaining_stake: '0.00', status: 5 } }),
    });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(cashout()).toMatchObject({ suggested: 11.8, amount: 11.8, cashing: false, done: null });
    store.dispatch(cashoutActions.cashoutRequested(cashout().suggested!));
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('cashout').map((c) => c.params.price)).toEqual([12.3, 11.8]);
    // Each attempt has its own request id.
    const ids = commands('cashout').map((c) => c.params.request_id);
    expect(new Set(ids).size).toBe(2);
    expect(cashout()).toMatchObject({ suggested: null, done: { amount: '11.80' } });
    task.cancel();
  });

  it('Fail with a partial amount above the new price brings the partial amount down', async () => {
    const { store, cashout, task } = start({ ...base, cashout: () => ({ result: 'Fail', details: { new_price: 8.4 } }) });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.scopeChosen('partial'));
    store.dispatch(cashoutActions.partialChanged('10.00'));
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.cashoutRequested(8.4));
    expect(cashout().partial).toBe('8.40');
    task.cancel();
  });

  it('NotAvailable shows the not-cashable message', async () => {
    const { store, cashout, task } = start({ ...base, cashout: () => ({ result: 'NotAvailable', details: null }) });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(cashoutPhase(cashout())).toBe('notCashable');
    task.cancel();
  });

  it('a second tap while the first cash-out runs sends nothing more', async () => {
    let release!: (v: unknown) => void;
    const { store, commands, task } = start({ ...base, cashout: () => new Promise((r) => (release = r)) });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.cashoutRequested());
    store.dispatch(cashoutActions.cashoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('cashout')).toHaveLength(1);
    release({ result: 'Ok', details: { cash_out_amount: '12.30', remaining_stake: '0.00', status: 5 } });
    await vi.advanceTimersByTimeAsync(0);
    task.cancel();
  });
});

describe('auto cash-out saga', () => {
  it('sets a rule within the bounds: set_bet_auto_cashout {bet_id, min_amount, partial_amount}', async () => {
    const { store, commands, cashout, task } = start({ ...base, set_bet_auto_cashout: () => ({ result: 0 }) });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.wayChosen('auto'));
    store.dispatch(cashoutActions.triggerChanged('12.42'));
    store.dispatch(cashoutActions.ruleRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('set_bet_auto_cashout')).toHaveLength(0);
    expect(cashout().auto.error).toEqual({ key: 'validation.min_amount', args: ['12.43'] });
    store.dispatch(cashoutActions.triggerChanged('20'));
    store.dispatch(cashoutActions.autoPartialChanged('5'));
    store.dispatch(cashoutActions.ruleRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('set_bet_auto_cashout')).toEqual([{ command: 'set_bet_auto_cashout', params: { bet_id: 55, min_amount: 20, partial_amount: 5 } }]);
    expect(cashout().rule).toEqual({ MinAmount: '20.00', PartialAmount: '5.00' });
    expect(cashoutPhase(cashout())).toBe('ruleActive');
    task.cancel();
  });

  it('shows a 1109 refusal with the server bounds', async () => {
    const { store, cashout, task } = start({
      ...base, set_bet_auto_cashout: () => ({ result: 1109, result_text: 'Wrong amount', details: { min: '12.50', max: '24.70' } }),
    });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(cashoutActions.triggerChanged('12.45'));
    store.dispatch(cashoutActions.ruleRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(cashout().auto).toMatchObject({ saving: false, error: { key: 'error.1109' }, serverBounds: { min: 12.5, max: 24.7 } });
    expect(cashout().rule).toBeNull();
    task.cancel();
  });

  it('an existing rule shows on open; Cancel rule calls cancel_bet_auto_cashout', async () => {
    const { store, commands, cashout, task } = start({
      ...base,
      get_bet_auto_cashout: () => ({ result: 0, details: { MinAmount: '15.00', PartialAmount: '2.00' } }),
      cancel_bet_auto_cashout: () => ({ result: 0 }),
    });
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    expect(cashout()).toMatchObject({ way: 'auto', rule: { MinAmount: '15.00', PartialAmount: '2.00' } });
    expect(cashoutPhase(cashout())).toBe('ruleActive');
    store.dispatch(cashoutActions.ruleCancelRequested());
    expect(cashout().auto.cancelling).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('cancel_bet_auto_cashout')).toEqual([{ command: 'cancel_bet_auto_cashout', params: { bet_id: 55 } }]);
    expect(cashout()).toMatchObject({ rule: null, auto: { cancelling: false } });
    expect(cashoutPhase(cashout())).toBe('normal');
    task.cancel();
  });

  it('an auto cash-out tip about the open bet asks for its amount and rule again', async () => {
    const { store, commands, task } = start(base);
    store.dispatch(cashoutActions.opened(record()));
    await vi.advanceTimersByTimeAsync(0);
    store.dispatch(realtimeActions.betNotified({ subject: 'cashout', id: '99' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('get_bet_auto_cashout')).toHaveLength(1);
    store.dispatch(realtimeActions.betNotified({ subject: 'cashout', id: '55', money: '3.00' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('get_bet_auto_cashout')).toHaveLength(2);
    expect(commands('calculate_cashout_amount')).toHaveLength(2);
    task.cancel();
  });
});

describe('bet list amounts', () => {
  it('one calculate call for every bet offering cash-out; the rest are left alone', async () => {
    const { store, commands, cashout, task } = start({
      calculate_cashout_amount: () => ({ result: 0, details: [{ Id: 1, CashoutAmount: 4.2 }, { Id: 2, CashoutAmount: null }] }),
    });
    store.dispatch(historyActions.loaded([
      record({ id: 1 }), record({ id: 2 }), record({ id: 3, cash_out: false }), record({ id: 4, outcome: 3 }), record({ id: 5, type: 3 }),
    ]));
    await vi.advanceTimersByTimeAsync(0);
    expect(commands('calculate_cashout_amount')).toEqual([{ command: 'calculate_cashout_amount', params: { bet_ids: [1, 2] } }]);
    expect(cashout().amounts).toEqual({ 1: 4.2, 2: null });
    task.cancel();
  });
});

describe('cash-out amounts in exact decimals', () => {
  it('rounds as decimals, not floats', () => {
    expect((1.005).toFixed(2)).toBe('1.00'); // the float reading this replaced
    expect(money2(1.005)).toBe('1.01');
    expect(money2('133.575')).toBe('133.58');
    // 12.3 x 1.01 = 12.423 up to 12.43; 100.1 x 0.99 = 99.099 down to 99.09
    expect(autoBounds(12.3, 100.1)).toEqual({ min: 12.43, max: 99.09 });
  });
});

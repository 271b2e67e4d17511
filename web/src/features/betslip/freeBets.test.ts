import { configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { messageForCode } from '../../api/errors';
import { SwarmError } from '../../api/swarm';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { balanceActions } from '../balance/balanceSlice';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import { sessionActions } from '../session/sessionSlice';
import type { UserInfo } from '../session/types';
import { betslipActions } from './betslipSlice';
import { CLOSE_AFTER_BET_MS, FREE_BET_RELOAD_MS, betslipSaga, parseFreeBets, type BetslipDeps, type DoBetAnswer } from './sagas';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const profile = (extra: Record<string, unknown>) => ({ user_id: 7, username: 'demo', ...extra }) as unknown as UserInfo;
const pick = (eventId: number): Selection => ({
  gameId: eventId, marketId: eventId * 10, eventId, price: '2.000', base: null, marketName: 'Match Result', eventName: 'W1',
  team1: 'A', team2: 'B', isLive: false,
});
const EXPIRES = 1_900_000_000;
const fb = (id: number | string, amount: string | number) => ({ id, amount, currency: 'CNY', expires: EXPIRES });
const OK = (amount: string): DoBetAnswer => ({
  result: 'OK', result_text: null,
  details: { bet_id: 42, type: 1, amount, k: '2.000', events: [{ event_id: 1, event_name: 'A', home_team: 'A', away_team: 'B' }] },
});

type Call = { command: string; params: Record<string, unknown> };

/** A store running the betslip sagas; `answer` scripts the Swarm commands. */
function start(answer: (call: Call, n: number) => Promise<unknown> | unknown, { loggedIn = true } = {}) {
  const calls: Call[] = [];
  const deps: BetslipDeps = {
    request: async <T,>(command: string, params: Record<string, unknown>) => {
      calls.push({ command, params });
      return (await answer({ command, params }, calls.length)) as T;
    },
  };
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga),
  });
  if (loggedIn) {
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    store.dispatch(balanceActions.fetched({ balance: '1000.00', bonus_balance: '0', bonus_win_balance: '0', frozen_balance: '0', currency: 'CNY' }));
  }
  const task = saga.run(betslipSaga, deps);
  const commands = () => calls.map((c) => c.command).filter((c) => c === 'get_free_bets' || c === 'do_bet' || c === 'restore_login');
  return { store, calls, commands, task };
}

/** get_free_bets answers with the given lists in turn (the last one repeats); do_bet with `bet`. */
function server(lists: unknown[][], bet: (params: Record<string, unknown>) => DoBetAnswer = (p) => OK(String(p.amount))) {
  let n = 0;
  return ({ command, params }: Call) => {
    if (command === 'get_free_bets') return { result: 0, details: lists[Math.min(n++, lists.length - 1)] };
    if (command === 'do_bet') return bet(params);
    return {};
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('free-bet list', () => {
  it('loads 100 ms after the profile says has_free_bets, mapped to the slip and without malformed entries', async () => {
    const { store, calls, task } = start(server([[
      fb(12, '20.00'), fb('13', '5.00'), { id: 'x', amount: '1' }, { id: 14 }, fb(15, '-3'), fb(16, 'abc'), null, 'junk', fb(12, '9.00'), fb(17, 7.5),
    ]]));
    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS - 1);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([{ command: 'get_free_bets', params: {} }]);
    expect(store.getState().betslip).toMatchObject({
      hasFreeBets: true, freeBet: false, selectedFreeBetId: null,
      freeBets: [{ id: 12, amount: '20.00' }, { id: 13, amount: '5.00' }, { id: 17, amount: '7.5' }],
    });
    task.cancel();
  });

  it('does not load when the profile has no free bets, nor for a visitor', async () => {
    const member = start(server([[fb(12, '20.00')]]));
    member.store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: false })));
    member.store.dispatch(sessionActions.profileLoaded(profile({})));
    await vi.advanceTimersByTimeAsync(1000);
    expect(member.calls).toEqual([]);
    expect(member.store.getState().betslip).toMatchObject({ hasFreeBets: false, freeBets: [] });
    member.task.cancel();

    const visitor = start(server([[fb(12, '20.00')]]), { loggedIn: false });
    visitor.store.dispatch(betslipActions.freeBetsReloadRequested());
    await vi.advanceTimersByTimeAsync(1000);
    expect(visitor.calls).toEqual([]);
    visitor.task.cancel();
  });

  it('a profile without free bets or a logout cancels a pending load', async () => {
    const { store, calls, task } = start(server([[fb(12, '20.00')]]));
    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    await vi.advanceTimersByTimeAsync(50);
    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: false })));
    await vi.advanceTimersByTimeAsync(1000);
    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    await vi.advanceTimersByTimeAsync(50);
    store.dispatch(sessionActions.loggedOut());
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual([]);
    expect(store.getState().betslip).toMatchObject({ hasFreeBets: false, freeBets: [] });
    task.cancel();
  });

  it('switching the free bet on reloads the list and chooses the first free bet', async () => {
    const { store, commands, task } = start(server([[], [fb(12, '20.00'), fb(13, '5.00')]]));
    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    store.dispatch(betslipActions.freeBetToggled(true)); // before the first answer: replaces the pending load
    expect(store.getState().betslip).toMatchObject({ freeBet: true, selectedFreeBetId: null });
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(commands()).toEqual(['get_free_bets']);
    // the first answer was the empty one: nothing to stake, the switch goes
    expect(store.getState().betslip).toMatchObject({ freeBets: [], hasFreeBets: false, freeBet: false });

    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    store.dispatch(betslipActions.freeBetToggled(true));
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS - 1);
    expect(commands()).toEqual(['get_free_bets', 'get_free_bets']);
    await vi.advanceTimersByTimeAsync(1);
    expect(commands()).toEqual(['get_free_bets', 'get_free_bets', 'get_free_bets']);
    expect(store.getState().betslip).toMatchObject({ freeBet: true, selectedFreeBetId: 12, selectedFreeBetAmount: '20.00', hasFreeBets: true });

    store.dispatch(betslipActions.freeBetChosen({ id: 13, amount: '5.00' }));
    store.dispatch(betslipActions.freeBetToggled(false)); // off: no load
    store.dispatch(betslipActions.freeBetToggled(true));
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(commands()).toHaveLength(4);
    task.cancel();
  });

  it('switching on without free bets loads nothing', async () => {
    const { store, calls, task } = start(server([[fb(12, '20.00')]]));
    store.dispatch(betslipActions.freeBetToggled(true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual([]);
    task.cancel();
  });

  it('a refused or failed load keeps the list', async () => {
    let n = 0;
    const { store, calls, task } = start(({ command }) => {
      if (command !== 'get_free_bets') return {};
      n += 1;
      if (n === 1) return { result: 0, details: [fb(12, '20.00')] };
      if (n === 2) return { result: 12, result_text: 'Not logged in' };
      if (n === 3) return { result: 0, details: null };
      throw new Error('websocket closed');
    });
    for (let i = 0; i < 4; i++) {
      store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
      await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    }
    expect(calls).toHaveLength(4);
    expect(store.getState().betslip.freeBets).toEqual([{ id: 12, amount: '20.00' }]);
    task.cancel();
  });

  it('code 12 from the Swarm session: restore_login and one retry', async () => {
    const { store, commands, calls, task } = start(({ command }, n) => {
      if (command === 'get_free_bets' && n === 1) throw new SwarmError(12, 'Not logged in');
      return command === 'get_free_bets' ? { result: 0, details: [fb(12, '20.00')] } : {};
    });
    store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(commands()).toEqual(['get_free_bets', 'restore_login', 'get_free_bets']);
    expect(calls[1]!.params).toEqual({ user_id: '7', auth_token: 'tok' });
    expect(store.getState().betslip.freeBets).toEqual([{ id: 12, amount: '20.00' }]);
    task.cancel();
  });
});

describe('placing with a free bet', () => {
  async function withFreeBets(answer: ReturnType<typeof server>) {
    const started = start(answer);
    started.store.dispatch(sessionActions.profileLoaded(profile({ has_free_bets: true })));
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    return started;
  }
  const slip = (store: ReturnType<typeof start>['store']) => {
    store.dispatch(betslipActions.opened());
    store.dispatch(selectionsActions.toggled(pick(1)));
    store.dispatch(betslipActions.freeBetToggled(true));
  };

  it('the used free bet goes at once, the list reloads 100 ms later, and with none left the switch goes off', async () => {
    const { store, calls, commands, task } = await withFreeBets(server([
      [fb(12, '20.00'), fb(13, '5.00')], [fb(12, '20.00'), fb(13, '5.00')], [fb(13, '5.00')], [fb(13, '5.00')], [],
    ]));
    slip(store);
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS); // the switch's reload
    expect(store.getState().betslip).toMatchObject({ freeBet: true, selectedFreeBetId: 12 });

    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.find((c) => c.command === 'do_bet')!.params).toMatchObject({ amount: 20, bonus_id: '12', bets: [{ event_id: 1 }] });
    expect(store.getState().betslip).toMatchObject({ betState: 'accepted', freeBets: [{ id: 13, amount: '5.00' }], hasFreeBets: true });
    expect(commands()).toEqual(['get_free_bets', 'get_free_bets', 'do_bet']);
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(commands()).toEqual(['get_free_bets', 'get_free_bets', 'do_bet', 'get_free_bets']);
    await vi.advanceTimersByTimeAsync(CLOSE_AFTER_BET_MS);
    expect(store.getState().betslip).toMatchObject({ events: [], freeBet: false, freeBets: [{ id: 13, amount: '5.00' }], hasFreeBets: true });

    store.dispatch(betslipActions.successClosed());
    slip(store);
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(store.getState().betslip).toMatchObject({ freeBet: true, selectedFreeBetId: 13, selectedFreeBetAmount: '5.00' });
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.filter((c) => c.command === 'do_bet')[1]!.params).toMatchObject({ amount: 5, bonus_id: '13' });
    // none left: the switch goes off and hides at once
    expect(store.getState().betslip).toMatchObject({
      freeBets: [], hasFreeBets: false, freeBet: false, selectedFreeBetId: null, selectedFreeBetAmount: null,
    });
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(commands().filter((c) => c === 'get_free_bets')).toHaveLength(5);
    expect(store.getState().betslip).toMatchObject({ freeBets: [], hasFreeBets: false, freeBet: false });
    task.cancel();
  });

  it('an ordinary bet does not touch the free bets', async () => {
    const { store, commands, task } = await withFreeBets(server([[fb(12, '20.00')]]));
    store.dispatch(betslipActions.opened());
    store.dispatch(selectionsActions.toggled(pick(1)));
    store.dispatch(betslipActions.stakeChanged('10'));
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(CLOSE_AFTER_BET_MS + FREE_BET_RELOAD_MS);
    expect(commands()).toEqual(['get_free_bets', 'do_bet']);
    expect(store.getState().betslip.freeBets).toEqual([{ id: 12, amount: '20.00' }]);
    task.cancel();
  });

  it('1912: "This free bet cannot be used." and the list reloads', async () => {
    const { store, commands, task } = await withFreeBets(server(
      [[fb(12, '20.00'), fb(13, '5.00')], [fb(12, '20.00'), fb(13, '5.00')], [fb(13, '5.00')]],
      () => ({ result: 1912, result_text: 'This free bet cannot be used.' }),
    ));
    slip(store);
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    store.dispatch(betslipActions.placeRequested());
    await vi.advanceTimersByTimeAsync(0);
    const state = store.getState().betslip;
    expect(state).toMatchObject({ betState: 'failed', message: { key: 'error.1912', args: [] } });
    expect(state.events).toHaveLength(1);
    expect(messageForCode(1912)).toEqual({ key: 'error.1912', args: [] });
    expect(readSkin('languages/eng.json')['error.1912']).toBe('This free bet cannot be used.');
    for (const lang of ['zhh', 'tha']) expect(readSkin(`languages/${lang}.json`)['error.1912'], lang).toBeTruthy();
    await vi.advanceTimersByTimeAsync(FREE_BET_RELOAD_MS);
    expect(commands()).toEqual(['get_free_bets', 'get_free_bets', 'do_bet', 'get_free_bets']);
    // the refused one is gone on the server: the next one is chosen, the message stays
    expect(store.getState().betslip).toMatchObject({
      freeBet: true, selectedFreeBetId: 13, selectedFreeBetAmount: '5.00', message: { key: 'error.1912' },
    });
    task.cancel();
  });
});

describe('parseFreeBets', () => {
  it('keeps positive integer ids and positive decimal amounts', () => {
    expect(parseFreeBets(null)).toEqual([]);
    expect(parseFreeBets({ id: 1, amount: '1' })).toEqual([]);
    expect(parseFreeBets([
      fb(1, '1'), fb(' 2 ', ' 2.50 '), fb(0, '1'), fb(-3, '1'), fb(1.5, '1'), fb('0x10', '1'), fb(4, '0'), fb(5, '1e3'),
      fb(6, Number.NaN), fb(7, true as never), { amount: '1' }, [],
    ])).toEqual([{ id: 1, amount: '1' }, { id: 2, amount: '2.50' }]);
  });
});

import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware from 'redux-saga';
import { describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { balanceActions } from '../balance/balanceSlice';
import { i18nActions } from '../i18n/i18nSlice';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import { sessionActions } from '../session/sessionSlice';
import { BetslipLauncher } from './BetslipLauncher';
import { betslipSaga } from './sagas';

const eng = readSkin('languages/eng.json');
const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const pick: Selection = {
  gameId: 5, marketId: 50, eventId: 501, price: '1.850', base: null, marketName: 'Match Result', eventName: 'W1', team1: 'A', team2: 'B', isLive: false,
};

function setup() {
  const calls: Array<{ command: string; params: Record<string, unknown> }> = [];
  const request = vi.fn(async (command: string, params: Record<string, unknown>) => {
    calls.push({ command, params });
    if (command === 'do_bet') return { result: 'OK', result_text: null, details: { bet_id: 9, type: 1, amount: params.amount, k: '1.850', events: [] } };
    return { result: 0, details: [] };
  });
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga),
  });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  store.dispatch(balanceActions.fetched({ balance: '1000.00', bonus_balance: '0', bonus_win_balance: '0', frozen_balance: '0', currency: 'CNY' }));
  saga.run(betslipSaga, { request: request as never });
  render(<Provider store={store}><BetslipLauncher visible /></Provider>);
  return { store, calls };
}

describe('quick bet from the game lists', () => {
  it('is switched on beside the betslip button, without the sheet, and a tapped price is placed at once', async () => {
    const { store, calls } = setup();
    expect(store.getState().betslip.open).toBe(false);
    fireEvent.click(screen.getByTestId('quick-bet-list-toggle'));
    expect(store.getState().betslip.quickBet).toBe(true);
    fireEvent.click(screen.getByTestId('quick-bet-stake'));
    fireEvent.click(screen.getByTestId('quick-stake-50'));
    expect(store.getState().betslip.quickBetStake).toBe('50');
    expect(screen.getByTestId('quick-bet-hint').textContent).toContain('50.00');
    await act(async () => {
      store.dispatch(selectionsActions.toggled(pick));
      await Promise.resolve();
    });
    await vi.waitFor(() => expect(calls.some((c) => c.command === 'do_bet')).toBe(true));
    const bet = calls.find((c) => c.command === 'do_bet')!;
    expect(bet.params).toMatchObject({ type: 1, amount: 50, bets: [{ event_id: 501, price: 1.85 }] });
    // still on, the sheet never opened, the pick left the slip
    await vi.waitFor(() => expect(store.getState().betslip.events).toHaveLength(0));
    expect(store.getState().betslip).toMatchObject({ quickBet: true, open: false });
  });

  it('refuses a quick stake above the balance with the top-up message', () => {
    const { store } = setup();
    store.dispatch(balanceActions.fetched({ balance: '20.00', bonus_balance: '0', bonus_win_balance: '0', frozen_balance: '0', currency: 'CNY' }));
    fireEvent.click(screen.getByTestId('quick-bet-list-toggle'));
    fireEvent.click(screen.getByTestId('quick-bet-stake'));
    fireEvent.click(screen.getByTestId('quick-stake-50'));
    expect(store.getState().betslip.quickBetStake).toBe('10');
    expect(screen.getByRole('alert').textContent).toBe(eng['betslip.quick_balance_low']);
  });
});

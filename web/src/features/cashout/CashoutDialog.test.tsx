import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { describe, expect, it } from 'vitest';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import type { BetRecord } from '../history/model';
import { i18nActions } from '../i18n/i18nSlice';
import { CashoutDialog } from './CashoutDialog';
import { cashoutActions } from './cashoutSlice';

const eng = readSkin('languages/eng.json');
const record: BetRecord = {
  id: 55, type: 1, date_time: 1_800_000_000, amount: '10.00', k: '2.500', possible_win: '25.00', outcome: 0, cash_out: true, currency: 'CNY',
  events: [{ selection_id: 901, outcome: 3 }],
};

/** The dialog on a store without sagas: the test plays the saga's part with actions. */
function renderDialog() {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }) });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  store.dispatch(cashoutActions.opened(record));
  render(<Provider store={store}><CashoutDialog /></Provider>);
  const dispatch = (a: Parameters<typeof store.dispatch>[0]) => act(() => void store.dispatch(a));
  return { store, dispatch };
}

const phase = () => screen.getByTestId('cashout-dialog').getAttribute('data-phase');

describe('cash-out dialog', () => {
  it('normal: the amount, Manual and Auto, full and partial with a slider bounded by the amount', () => {
    const { dispatch } = renderDialog();
    expect(phase()).toBe('loading');
    dispatch(cashoutActions.amountLoaded({ id: '55', amount: 12.3 }));
    expect(phase()).toBe('normal');
    expect(screen.getByTestId('cashout-amount')).toHaveTextContent('12.30 CNY');
    expect(screen.getByTestId('cashout-submit')).toHaveTextContent('Cash out 12.30');
    fireEvent.click(screen.getByTestId('cashout-scope-partial'));
    const range = screen.getByTestId('cashout-partial-range');
    expect(range).toHaveAttribute('min', '0.01');
    expect(range).toHaveAttribute('max', '12.3');
    expect(range).toHaveAttribute('step', '0.01');
    expect(screen.getByTestId('cashout-submit')).toHaveTextContent('Cash out 6.15');
    fireEvent.change(screen.getByTestId('cashout-partial-input'), { target: { value: '13' } });
    expect(screen.getByTestId('cashout-partial-error')).toHaveTextContent('Max amount is 12.30');
    expect(screen.getByTestId('cashout-submit')).toBeDisabled();
    fireEvent.change(range, { target: { value: '4.2' } });
    expect(screen.getByTestId('cashout-partial-input')).toHaveValue('4.20');
    expect(screen.getByTestId('cashout-submit')).toBeEnabled();
  });

  it("Fail: 'Cannot cash out' with the suggested amount, one tap to accept it", () => {
    const { store, dispatch } = renderDialog();
    dispatch(cashoutActions.amountLoaded({ id: '55', amount: 12.3 }));
    dispatch(cashoutActions.cashoutMoved(11.8));
    expect(screen.getByTestId('cashout-fail')).toHaveTextContent('Cannot cash out');
    expect(screen.getByTestId('cashout-fail')).toHaveTextContent('Suggested amount: 11.80');
    expect(screen.getByTestId('cashout-submit')).toBeDisabled();
    fireEvent.click(screen.getByTestId('cashout-accept-suggested'));
    expect(store.getState().cashout).toMatchObject({ amount: 11.8, suggested: null });
  });

  it('not cashable, done', () => {
    const { dispatch } = renderDialog();
    dispatch(cashoutActions.amountLoaded({ id: '55', amount: null }));
    expect(screen.getByTestId('cashout-not-cashable')).toHaveTextContent('The current game cannot be settled in advance!');
    dispatch(cashoutActions.cashoutSucceeded({ amount: '12.30', remainingStake: '0.00', status: 5 }));
    expect(screen.getByTestId('cashout-done')).toHaveTextContent('Cashout done!');
    expect(screen.getByTestId('cashout-paid')).toHaveTextContent('Paid 12.30 CNY');
  });

  it('auto: the trigger bounds shown, a trigger outside them refused; an active rule with Cancel rule', () => {
    const { dispatch } = renderDialog();
    dispatch(cashoutActions.amountLoaded({ id: '55', amount: 12.3 }));
    fireEvent.click(screen.getByTestId('cashout-way-auto'));
    expect(screen.getByTestId('cashout-auto-bounds')).toHaveTextContent('Between 12.43 and 24.75');
    fireEvent.change(screen.getByTestId('cashout-trigger'), { target: { value: '30' } });
    expect(screen.getByTestId('cashout-trigger-error')).toHaveTextContent('Max amount is 24.75');
    expect(screen.getByTestId('cashout-set-rule')).toBeDisabled();
    fireEvent.change(screen.getByTestId('cashout-trigger'), { target: { value: '20' } });
    fireEvent.change(screen.getByTestId('cashout-auto-partial'), { target: { value: '21' } });
    expect(screen.getByTestId('cashout-auto-partial-error')).toHaveTextContent('Max amount is 20.00');
    dispatch(cashoutActions.ruleSet({ MinAmount: '20.00', PartialAmount: null }));
    expect(phase()).toBe('ruleActive');
    expect(screen.getByTestId('cashout-rule-min')).toHaveTextContent('20.00');
    expect(screen.getByTestId('cashout-rule-partial')).toHaveTextContent('Full cash-out');
    expect(screen.getByTestId('cashout-cancel-rule')).toHaveTextContent('Cancel rule');
  });
});

import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware, { type Saga } from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { envelope, mockFetch, type Handler } from '../../test/fetchMock';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { makeTranslator } from '../i18n/translate';
import { BackofficeApp } from './BackofficeApp';
import { statusText } from './FinancePage';
import { STORAGE_KEY } from './storage';

const B = '/api/backoffice';
const ORDER = {
  orderid: 'W1001', kind: 'withdrawal', channel: 'bank', currency: 'CNY', amount: '500.00', status: 'requested', note: '',
  username: 'demo', member_id: 'm7', created: 1_800_000_000, flagged: false, detail: {},
};
const DEPOSIT = { ...ORDER, orderid: 'D2002', kind: 'deposit', status: 'flagged', amount: '88.00', note: 'amount differs' };
const RECON = {
  list: [{ event_id: 'e1', provider_tx_id: 'tx1', status: 'paid', order_id: 'D2002', order_status: 'flagged', amount: '90.00', currency: 'CNY', credited_amount: null, difference: '90.00' }],
  differences: 1,
};

function renderFinance(lang: string, routes: Record<string, Handler> = {}) {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token: 'T1', role: 'finance', username: 'fin', expires: Date.now() + 3600_000 }));
  window.history.pushState(null, '', '/backoffice/finance');
  const spy = mockFetch({
    [`${B}/me`]: () => envelope({ username: 'fin', role: 'finance' }),
    [`${B}/payments/withdrawals`]: () => envelope({ list: [ORDER] }),
    [`${B}/payments/deposits`]: () => envelope({ list: [DEPOSIT] }),
    [`${B}/payments/reconciliation`]: () => envelope(RECON),
    [`${B}/payments/members/m7`]: () => envelope({ orders: [], movements: [] }),
    ...routes,
  });
  const saga = createSagaMiddleware();
  const store = Object.assign(
    configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }).concat(saga) }),
    { runSaga: (s: Saga) => saga.run(s) },
  );
  store.dispatch(i18nActions.loaded({ lang, strings: readSkin(`languages/${lang}.json`) }));
  render(<Provider store={store}><BackofficeApp /></Provider>);
  return spy;
}

beforeEach(() => sessionStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
  window.history.pushState(null, '', '/');
});

describe('finance desk (docs/payments.md)', () => {
  it('reads every order status in the staff language and an unknown one as sent', () => {
    for (const lang of ['eng', 'zhh', 'tha']) {
      const strings = readSkin(`languages/${lang}.json`);
      const t = makeTranslator(strings, lang);
      for (const status of ['requested', 'approved', 'rejected', 'cancelled', 'paid', 'failed', 'created', 'confirmed', 'credited', 'flagged', 'expired', 'reversed']) {
        expect(strings[`pay.status.${status}`], `${lang} ${status}`).toBeTruthy();
        expect(statusText(t, status)).toBe(strings[`pay.status.${status}`]);
      }
      expect(statusText(t, 'teleported')).toBe('teleported');
    }
  });

  it('shows the status of the orders translated, not the raw value', async () => {
    renderFinance('zhh');
    expect(await screen.findByTestId('bo-finance-status')).toHaveTextContent(readSkin('languages/zhh.json')['pay.status.requested']!);
    expect(screen.getByTestId('bo-finance-status')).not.toHaveTextContent('requested');
  });

  it('puts each of its tables in a horizontal scroller, so a narrow screen scrolls the table and not the page', async () => {
    const expectScrollers = (count: number) => {
      const tables = Array.from(document.querySelectorAll('[data-testid=bo-finance] table'));
      expect(tables).toHaveLength(count);
      for (const table of tables) expect(table.parentElement).toHaveClass('bo-scroll');
    };
    renderFinance('eng');
    await screen.findByTestId('bo-finance-item');
    await act(async () => fireEvent.click(screen.getByTestId('bo-finance-open')));
    expect(await screen.findByTestId('bo-finance-decision')).toBeInTheDocument();
    expectScrollers(2); // the orders and the member's money history
    await act(async () => fireEvent.click(screen.getByTestId('bo-finance-reconciliation')));
    await screen.findByTestId('bo-recon-differences');
    expect(screen.getByText('tx1 (Paid)')).toBeInTheDocument();
    expectScrollers(1);
  });

  it('asks before a withdrawal action, naming the action, the order, its amount and the member; Cancel sends nothing', async () => {
    const approve = vi.fn(() => envelope(null));
    const spy = renderFinance('eng', { [`${B}/payments/withdrawals/W1001/approve`]: approve });
    await screen.findByTestId('bo-finance-item');
    await act(async () => fireEvent.click(screen.getByTestId('bo-finance-open')));
    fireEvent.change(screen.getByTestId('bo-finance-reason'), { target: { value: 'checked the card' } });
    fireEvent.click(screen.getByTestId('bo-finance-approve'));
    const dialog = screen.getByTestId('bo-finance-confirm');
    expect(dialog).toHaveAccessibleName('Approve');
    expect(screen.getByTestId('bo-finance-confirm-text')).toHaveTextContent('Approve withdrawal W1001 of 500.00 CNY for demo?');
    expect(dialog).toHaveTextContent('Reason: checked the card');
    expect(dialog).not.toHaveTextContent(/are you sure/i);
    fireEvent.click(screen.getByTestId('bo-finance-confirm-cancel'));
    expect(screen.queryByTestId('bo-finance-confirm')).not.toBeInTheDocument();
    expect(approve).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('bo-finance-reject'));
    expect(screen.getByTestId('bo-finance-confirm-text')).toHaveTextContent(
      "Reject withdrawal W1001 of 500.00 CNY for demo? The money goes back to the member's balance.");
    fireEvent.click(screen.getByTestId('bo-finance-confirm-cancel'));
    fireEvent.click(screen.getByTestId('bo-finance-approve'));
    await act(async () => fireEvent.click(screen.getByTestId('bo-finance-confirm-ok')));
    expect(approve).toHaveBeenCalledTimes(1);
    const post = spy.mock.calls.find(([url]) => String(url).endsWith('/approve'))!;
    expect(JSON.parse(String((post[1] as RequestInit).body))).toEqual({ reason: 'checked the card' });
    expect(await screen.findByTestId('bo-finance-done')).toHaveTextContent('Withdrawal W1001 approved.');
  });

  it('names a flagged deposit\'s credit or rejection in the staff language', async () => {
    const zhh = readSkin('languages/zhh.json');
    renderFinance('zhh');
    const deposits = await screen.findByTestId('bo-finance-deposits');
    await act(async () => fireEvent.click(deposits));
    await screen.findByText('D2002');
    await act(async () => fireEvent.click(screen.getByTestId('bo-finance-open')));
    fireEvent.click(screen.getByTestId('bo-finance-credit'));
    expect(screen.getByTestId('bo-finance-confirm-text')).toHaveTextContent('按到账金额为存款 D2002（订单金额 88.00 CNY）给会员 demo 入账？');
    expect(screen.getByTestId('bo-finance-confirm-ok')).toHaveTextContent(zhh['bo.finance.action.credit']!);
    fireEvent.click(screen.getByTestId('bo-finance-confirm-cancel'));
    fireEvent.click(screen.getByTestId('bo-finance-reject'));
    expect(screen.getByTestId('bo-finance-confirm-text')).toHaveTextContent('拒绝存款 D2002（订单金额 88.00 CNY，会员 demo）？不会入账。');
  });
});

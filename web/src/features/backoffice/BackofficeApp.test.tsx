import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware, { type Saga } from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { envelope, json, mockFetch, type Handler } from '../../test/fetchMock';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { BackofficeApp } from './BackofficeApp';
import { STORAGE_KEY } from './storage';

const eng = readSkin('languages/eng.json');
const B = '/api/backoffice';

function renderBackoffice(path: string, routes: Record<string, Handler>) {
  window.history.pushState(null, '', path);
  const fetchSpy = mockFetch(routes);
  const saga = createSagaMiddleware();
  const store = Object.assign(
    configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }).concat(saga) }),
    { runSaga: (s: Saga) => saga.run(s) },
  );
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  render(<Provider store={store}><BackofficeApp /></Provider>);
  return { store, fetchSpy };
}

const staff = (role: string) => sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token: 'T1', role, username: 'sam', expires: Date.now() + 3600_000 }));
const ITEM = {
  bet_id: 77, user_id: 7, username: 'demo', currency: 'CNY', type: 1, amount: '100.00', k: '2.000', possible_win: '200.00',
  placed_at: 1_800_000_000_000, status: -5, super_bet_status: 0, counter_offer: null,
  events: [{ event_id: 1, game: 'Lions - Tigers', market: 'Match Result', selection: 'Lions', price: 2 }],
};

beforeEach(() => sessionStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
  window.history.pushState(null, '', '/');
});

describe('back office screens', () => {
  it('logs in with its own form and shows the role; support sees only the queue', async () => {
    const { fetchSpy } = renderBackoffice('/backoffice', {
      [`${B}/login`]: () => envelope({ token: 'T1', role: 'support', username: 'sam', expires: Date.now() + 3600_000 }),
      [`${B}/counter-offers?status=open`]: () => envelope([ITEM]),
    });
    fireEvent.click(screen.getByTestId('bo-login-submit'));
    expect(screen.getAllByText('Required')).toHaveLength(2);
    fireEvent.change(screen.getByTestId('bo-username'), { target: { value: 'sam' } });
    fireEvent.change(screen.getByTestId('bo-password'), { target: { value: 'support1234' } });
    await act(async () => fireEvent.click(screen.getByTestId('bo-login-submit')));
    expect(await screen.findByTestId('bo-role')).toHaveTextContent('Support');
    expect(screen.getByTestId('bo-nav-queue')).toBeInTheDocument();
    expect(screen.queryByTestId('bo-nav-audit')).not.toBeInTheDocument();
    expect(await screen.findByTestId('bo-queue-item')).toHaveTextContent('Lions - Tigers');
    expect(window.location.pathname).toBe('/backoffice/queue');
    const [, init] = fetchSpy.mock.calls.find(([url]) => String(url).includes('counter-offers')) as unknown as [string, RequestInit];
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer T1');
  });

  it('an auditor sees only the audit; the queue path says Not allowed for your role', async () => {
    staff('auditor');
    renderBackoffice('/backoffice/queue', { [`${B}/me`]: () => envelope({ username: 'ann', role: 'auditor' }) });
    expect(await screen.findByTestId('bo-error-forbidden')).toHaveTextContent('Not allowed for your role');
    expect(screen.getByTestId('bo-nav-audit')).toBeInTheDocument();
    expect(screen.queryByTestId('bo-nav-queue')).not.toBeInTheDocument();
  });

  it('an admin sees both', async () => {
    staff('admin');
    renderBackoffice('/backoffice/audit', { [`${B}/me`]: () => envelope({ username: 'root', role: 'admin' }) });
    expect(await screen.findByTestId('bo-audit')).toBeInTheDocument();
    expect(screen.getByTestId('bo-nav-queue')).toBeInTheDocument();
    expect(screen.getByTestId('bo-nav-audit')).toBeInTheDocument();
    expect(screen.getByTestId('bo-role')).toHaveTextContent('Admin');
  });

  it('a 401 answer goes back to the login form', async () => {
    staff('support');
    renderBackoffice('/backoffice/queue', {
      [`${B}/me`]: () => json({ status: -401, msg: 'Not logged in' }, 401),
      [`${B}/counter-offers?status=open`]: () => json({ status: -401, msg: 'Not logged in' }, 401),
    });
    expect(await screen.findByTestId('bo-login')).toBeInTheDocument();
    expect(screen.getByTestId('bo-login-notice')).toHaveTextContent('Your staff session has ended, please log in again');
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
  });

  it('a 403 answer shows Not allowed for your role', async () => {
    staff('support');
    renderBackoffice('/backoffice/queue', {
      [`${B}/me`]: () => envelope({ username: 'sam', role: 'support' }),
      [`${B}/counter-offers?status=open`]: () => json({ status: -403, msg: 'Not allowed for your role' }, 403),
    });
    expect(await screen.findByTestId('bo-error-forbidden')).toHaveTextContent('Not allowed for your role');
    expect(screen.queryByTestId('bo-login')).not.toBeInTheDocument();
  });

  it('the offer form validates before sending: a stake above the requested one, a missing reason', async () => {
    staff('support');
    const detail = { bet: ITEM, member: { user_id: 7, username: 'demo', currency: 'CNY', balance: '900.00', max_stake: '50.00' }, recent: [] };
    const { fetchSpy } = renderBackoffice('/backoffice/queue/77', {
      [`${B}/me`]: () => envelope({ username: 'sam', role: 'support' }),
      [`${B}/counter-offers/77`]: () => envelope(detail),
      [`${B}/counter-offers/77/decline`]: () => envelope(null),
      [`${B}/counter-offers?status=open`]: () => envelope([]),
    });
    expect(await screen.findByTestId('bo-member-limit')).toHaveTextContent('50.00 CNY');
    fireEvent.change(screen.getByTestId('bo-offer-amount'), { target: { value: '150' } });
    fireEvent.click(screen.getByTestId('bo-offer-submit'));
    expect(screen.getByTestId('bo-offer-amount-error')).toHaveTextContent('The stake cannot exceed the requested 100.00');
    expect(screen.getByTestId('bo-offer-reason-error')).toHaveTextContent('A reason is required');
    fireEvent.click(screen.getByTestId('bo-decline-submit'));
    expect(screen.getByTestId('bo-decline-reason-error')).toHaveTextContent('A reason is required');
    expect(fetchSpy.mock.calls.filter(([, init]) => (init as RequestInit | undefined)?.method === 'POST')).toHaveLength(0);
    fireEvent.change(screen.getByTestId('bo-decline-reason'), { target: { value: 'Suspicious pattern' } });
    await act(async () => fireEvent.click(screen.getByTestId('bo-decline-submit')));
    expect(await screen.findByTestId('bo-decision-done')).toHaveTextContent('Bet declined.');
    const post = fetchSpy.mock.calls.find(([, init]) => (init as RequestInit | undefined)?.method === 'POST')!;
    expect(post[0]).toBe(`${B}/counter-offers/77/decline`);
    expect(JSON.parse(String((post[1] as RequestInit).body))).toEqual({ reason: 'Suspicious pattern' });
  });
});

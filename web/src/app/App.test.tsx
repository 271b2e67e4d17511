import { act, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BALANCE_URL } from '../features/balance/sagas';
import { CONFIG_URL } from '../features/config/sagas';
import { languageUrl } from '../features/i18n/sagas';
import { DEMO_BALANCE, deferred, envelope, json, mockFetch } from '../test/fetchMock';
import { readSkin } from '../test/skins';
import { App } from './App';
import { createAppStore } from './store';

const conf = readSkin('conf.json');
const zhh = readSkin('languages/zhh.json');
const eng = readSkin('languages/eng.json');

function renderApp() {
  const store = createAppStore();
  render(
    <Provider store={store}>
      <App />
    </Provider>,
  );
  return store;
}

afterEach(() => vi.unstubAllGlobals());

describe('App shell', () => {
  it('shows the loader until both configuration and language file have loaded', async () => {
    const confGate = deferred<Response>();
    const langGate = deferred<Response>();
    mockFetch({
      [CONFIG_URL]: () => confGate.promise,
      [languageUrl('zhh')]: () => langGate.promise,
      [BALANCE_URL]: () => envelope(DEMO_BALANCE),
    });
    renderApp();

    expect(screen.getByTestId('app-loader')).toBeInTheDocument();
    await act(async () => confGate.resolve(json(conf)));
    expect(screen.getByTestId('app-loader')).toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();

    await act(async () => langGate.resolve(json(zhh)));
    expect(screen.queryByTestId('app-loader')).not.toBeInTheDocument();
    expect(screen.getByTestId('brand')).toHaveTextContent(/^Jade Sports$/);
    expect(await screen.findByTestId('balance')).toHaveTextContent('10,000.00');
    expect(screen.getByTestId('balance-currency')).toHaveTextContent('CNY');
    expect(screen.getByTestId('balance-username')).toHaveTextContent('demo');
    expect(screen.getByText(zhh['empty.no_data']!)).toBeInTheDocument();
  });

  it('shows login and free register for a guest, in the stored language', async () => {
    localStorage.setItem('lang', 'eng');
    mockFetch({
      [CONFIG_URL]: () => json(conf),
      [languageUrl('eng')]: () => json(eng),
      [BALANCE_URL]: () => envelope(null, 12),
    });
    renderApp();
    expect(await screen.findByTestId('auth-buttons')).toHaveTextContent('Login');
    expect(screen.getByTestId('auth-buttons')).toHaveTextContent('Free register');
    expect(screen.queryByTestId('balance')).not.toBeInTheDocument();
  });

  it('shows the error popup with diagnostics, and retry recovers', async () => {
    let confAnswer = () => new Response('down', { status: 503 });
    mockFetch({
      [CONFIG_URL]: () => confAnswer(),
      [languageUrl('zhh')]: () => json(zhh),
      [BALANCE_URL]: () => envelope(DEMO_BALANCE),
    });
    renderApp();

    expect(await screen.findByTestId('boot-error-message')).toHaveTextContent('Request failed (HTTP 503)');
    expect(screen.getByTestId('boot-error')).toHaveTextContent(navigator.userAgent);
    expect(screen.getByTestId('boot-error-online')).toHaveTextContent(navigator.onLine ? 'Yes' : 'No');

    confAnswer = () => json(conf);
    await act(async () => screen.getByRole('button', { name: 'Retry' }).click());
    expect(await screen.findByTestId('balance')).toHaveTextContent('10,000.00');
    expect(screen.queryByTestId('boot-error')).not.toBeInTheDocument();
  });

  it('shows the fallback page for an unknown path', async () => {
    window.history.pushState(null, '', '/no-such-page');
    mockFetch({
      [CONFIG_URL]: () => json(conf),
      [languageUrl('zhh')]: () => json(zhh),
      [BALANCE_URL]: () => envelope(DEMO_BALANCE),
    });
    renderApp();
    expect(await screen.findByText(zhh['empty.page_not_found']!)).toBeInTheDocument();
    window.history.pushState(null, '', '/');
  });
});

import { act, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../api/transport';
import { CONFIG_URL } from '../features/config/sagas';
import { languageUrl } from '../features/i18n/sagas';
import { PAIRS, mockApi, ok, refuse, type ApiHandler } from '../test/apiMock';
import { DEMO_BALANCE, deferred, json } from '../test/fetchMock';
import { readSkin } from '../test/skins';
import { App } from './App';
import { createAppStore } from './store';

const conf = readSkin('conf.json');
const zhh = readSkin('languages/zhh.json');
const eng = readSkin('languages/eng.json');

const PROFILE = { username: 'demo', nickname: 'Demo King', vipname: 'Unranked', phone: '', email: '' };
const member: Record<string, ApiHandler> = {
  getapitoken: () => ok({ apitoken: 'T' }),
  getconfig: () => ok({ public_key: 'PEM', registration: { promo_code_enabled: true, agreement_as_link: true } }),
  getmobilecountrycode: () => ok([{ code: '86', country: 'CN', enable: true }]),
  'user/getbalance': () => ok(DEMO_BALANCE),
  'user/userinfo': () => ok(PROFILE),
  'user/renewsession': () => ok({ expires: Date.now() + 600_000 }),
};

function storeSession() {
  localStorage.setItem('authData', JSON.stringify({ auth_token: 'tok', user_id: 7, username: 'demo', expires: Date.now() + 600_000, never_expires: false }));
  localStorage.setItem('session', 'sess');
}

function renderApp() {
  const store = createAppStore();
  render(
    <Provider store={store}>
      <App />
    </Provider>,
  );
  return store;
}

beforeEach(() => configureTransport({ pairs: PAIRS, reportLogs: false }));
afterEach(() => vi.unstubAllGlobals());

describe('App shell', () => {
  it('shows the loader until configuration, API token and language file have loaded; a stored session shows the balance', async () => {
    storeSession();
    const confGate = deferred<Response>();
    const langGate = deferred<Response>();
    const api = mockApi(member, { [CONFIG_URL]: () => confGate.promise as unknown as Response, [languageUrl('zhh')]: () => langGate.promise as unknown as Response });
    renderApp();

    expect(screen.getByTestId('app-loader')).toBeInTheDocument();
    await act(async () => confGate.resolve(json(conf)));
    expect(screen.getByTestId('app-loader')).toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();

    await act(async () => langGate.resolve(json(zhh)));
    expect(await screen.findByTestId('brand', {}, { timeout: 4000 })).toHaveTextContent(/^Jade Sports$/);
    expect(screen.queryByTestId('app-loader')).not.toBeInTheDocument();
    expect(await screen.findByTestId('balance', {}, { timeout: 4000 })).toHaveTextContent('10,000.00');
    expect(screen.getByTestId('balance-currency')).toHaveTextContent('CNY');
    expect(await screen.findByText('Demo King')).toBeInTheDocument();
    expect(await screen.findByTestId('banner')).toHaveTextContent(zhh['home.hero.title']!);
    expect(api.last('user/getbalance')!.headers.UserToken).toBe('tok');
    expect(localStorage.getItem('webKey')).toBe('T');
  });

  it('shows login and free register for a guest, in the stored language, and opens the login popup', async () => {
    localStorage.setItem('lang', 'eng');
    mockApi(member, { [CONFIG_URL]: () => json(conf), [languageUrl('eng')]: () => json(eng) });
    renderApp();
    expect(await screen.findByTestId('auth-buttons')).toHaveTextContent('Login');
    expect(screen.getByTestId('auth-buttons')).toHaveTextContent('Free register');
    expect(screen.queryByTestId('balance')).not.toBeInTheDocument();
    await act(async () => screen.getByTestId('open-login').click());
    expect(await screen.findByTestId('login-popup')).toHaveTextContent('Member Login');
    expect(screen.getByTestId('captcha-image').getAttribute('src')).toMatch(/^\/api\/validateimage\?uid=[A-Za-z0-9]{16}$/);
  });

  it('drops an expired stored session', async () => {
    localStorage.setItem('authData', JSON.stringify({ auth_token: 'tok', user_id: 7, expires: Date.now() - 1 }));
    localStorage.setItem('session', 'sess');
    mockApi(member, { [CONFIG_URL]: () => json(conf), [languageUrl('zhh')]: () => json(zhh) });
    renderApp();
    expect(await screen.findByTestId('auth-buttons')).toBeInTheDocument();
    expect(localStorage.getItem('authData')).toBeNull();
    expect(localStorage.getItem('session')).toBeNull();
  });

  it('logs the member out on -601 with the expiry warning', async () => {
    storeSession();
    mockApi({ ...member, 'user/getbalance': () => refuse(-601, 'expired'), logout: () => refuse(-601) },
      { [CONFIG_URL]: () => json(conf), [languageUrl('eng')]: () => json(eng) });
    localStorage.setItem('lang', 'eng');
    renderApp();
    expect(await screen.findByTestId('notice', {}, { timeout: 4000 })).toHaveTextContent(
      'Sorry, your login status has expired, please log in again',
    );
    expect(screen.getByTestId('auth-buttons')).toBeInTheDocument();
    expect(localStorage.getItem('authData')).toBeNull();
  });

  it('shows the error popup with diagnostics, and retry recovers', async () => {
    let confAnswer = () => new Response('down', { status: 503 });
    mockApi(member, { [CONFIG_URL]: () => confAnswer(), [languageUrl('zhh')]: () => json(zhh) });
    renderApp();

    expect(await screen.findByTestId('boot-error-message')).toHaveTextContent('Request failed (HTTP 503)');
    expect(screen.getByTestId('boot-error')).toHaveTextContent(navigator.userAgent);
    expect(screen.getByTestId('boot-error-online')).toHaveTextContent(navigator.onLine ? 'Yes' : 'No');

    confAnswer = () => json(conf);
    await act(async () => screen.getByRole('button', { name: 'Retry' }).click());
    expect(await screen.findByTestId('auth-buttons')).toBeInTheDocument();
    expect(screen.queryByTestId('boot-error')).not.toBeInTheDocument();
  });

  it('shows the fallback page for an unknown path', async () => {
    window.history.pushState(null, '', '/no-such-page');
    mockApi(member, { [CONFIG_URL]: () => json(conf), [languageUrl('zhh')]: () => json(zhh) });
    renderApp();
    expect(await screen.findByText(zhh['empty.page_not_found']!)).toBeInTheDocument();
    window.history.pushState(null, '', '/');
  });

  it('draws /backoffice with its own login and none of the member shell', async () => {
    window.history.pushState(null, '', '/backoffice');
    mockApi(member, { [CONFIG_URL]: () => json(conf), [languageUrl('zhh')]: () => json(zhh) });
    renderApp();
    expect(await screen.findByTestId('bo-login', {}, { timeout: 4000 })).toHaveTextContent(zhh['bo.login.title']!);
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    expect(screen.queryByTestId('betslip-button')).not.toBeInTheDocument();
    window.history.pushState(null, '', '/');
  });

  it('opens registration from #action=register', async () => {
    window.history.pushState(null, '', '/#action=register');
    mockApi(member, { [CONFIG_URL]: () => json(conf), [languageUrl('zhh')]: () => json(zhh) });
    renderApp();
    expect(await screen.findByTestId('register-popup')).toBeInTheDocument();
    expect(window.location.hash).toBe('');
    window.history.pushState(null, '', '/');
  });
});

import { configureStore } from '@reduxjs/toolkit';
import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api/transport';
import { matchRoute } from '../../app/router';
import { rootReducer } from '../../app/store';
import { PAIRS, mockApi, ok } from '../../test/apiMock';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { sessionActions } from '../session/sessionSlice';
import { UsdtHelpPage } from './UsdtHelp';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'p', expires: Date.now() + 600_000, never_expires: false };
const CHANNELS = {
  currency: 'CNY', quick_amounts: [], bank: { bank_name: '', account: '', holder: '' },
  channels: [{ channel: 'usdt', min: '100.00', max: '50000.00' }, { channel: 'bank', min: '100.00', max: '10000.00' }],
  chains: [{ chain: 'TRC20', confirmations: 19 }, { chain: 'ERC20', confirmations: 64 }],
};

function setup(lang: string, loggedIn: boolean) {
  const strings = readSkin(`languages/${lang}.json`);
  const api = mockApi({
    'emaildeposit/channels': () => ok(CHANNELS),
    'emaildeposit/GetVirtualExchangeRate': () => ok({ rate: '7.20', usdt_amount: '13.89', expires: 0, currency: 'CNY' }),
  });
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang, strings }));
  if (loggedIn) store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  render(<Provider store={store}><UsdtHelpPage /></Provider>);
  return { api, strings };
}

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => vi.unstubAllGlobals());

describe('/usdthelp: USDT deposit help (spec 001 section 2.1, Chinese)', () => {
  it('is a payments page', () => {
    expect(matchRoute('/usdthelp', [])).toEqual({ page: 'payments', name: 'usdthelp' });
  });

  it('shows the guide in Chinese with the live rate, limits and confirmations of the member', async () => {
    const { strings } = setup('zhh', true);
    expect(screen.getByTestId('usdthelp-page').textContent).toContain(strings['usdthelp.title']);
    expect(await screen.findByText('1 USDT ≈ 7.20 CNY', {}, { timeout: 4000 })).toBeTruthy();
    expect(screen.getByText('100.00 - 50000.00 CNY')).toBeTruthy();
    expect(screen.getByText('19 个区块确认')).toBeTruthy();
    expect(screen.getByTestId('usdthelp-deposit').getAttribute('href')).toBe('/usercenter/deposit');
  });

  it('asks a visitor to log in for the figures and calls nothing', () => {
    const { api, strings } = setup('zhh', false);
    expect(screen.getByTestId('usdthelp-page').textContent).toContain(strings['usdthelp.login_for_rate']);
    expect(api.calls).toHaveLength(0);
  });

  it('is the fallback page in the other languages, as /news', () => {
    const { strings } = setup('eng', false);
    expect(screen.queryByTestId('usdthelp-page')).toBeNull();
    expect(screen.getByText(strings['empty.page_not_found']!)).toBeTruthy();
  });
});

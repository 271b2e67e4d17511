import { act, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../api/transport';
import { CONFIG_URL } from '../features/config/sagas';
import { languageUrl } from '../features/i18n/sagas';
import { PAIRS, mockApi, ok } from '../test/apiMock';
import { json } from '../test/fetchMock';
import { readSkin } from '../test/skins';
import { App } from './App';
import { navigate } from './router';
import { createAppStore } from './store';

const conf = readSkin('conf.json');
const eng = readSkin('languages/eng.json');
const guest = { getapitoken: () => ok({ apitoken: 'T' }), getconfig: () => ok({ public_key: 'PEM' }) };

function renderAt(path: string, menu?: string[]) {
  window.history.pushState(null, '', path);
  localStorage.setItem('lang', 'eng');
  mockApi(guest, { [CONFIG_URL]: () => json(menu ? { ...conf, main_menu_order: menu } : conf), [languageUrl('eng')]: () => json(eng) });
  render(<Provider store={createAppStore()}><App /></Provider>);
}

beforeEach(() => configureTransport({ pairs: PAIRS, reportLogs: false }));
afterEach(() => {
  vi.unstubAllGlobals();
  window.history.pushState(null, '', '/');
});

describe('the browser router (react-router over the spec route table)', () => {
  it('draws a lazy feature screen, and navigate() from outside React moves the router and scrolls to the top', async () => {
    const scrollTo = vi.spyOn(window, 'scrollTo');
    Object.defineProperty(window, 'scrollY', { value: 400, configurable: true });
    renderAt('/messages');
    expect(await screen.findByTestId('messages-page', {}, { timeout: 4000 })).toHaveTextContent(eng['messages.title']!);
    scrollTo.mockClear();
    await act(async () => navigate('/no/such/page'));
    expect(await screen.findByText(eng['empty.page_not_found']!)).toBeInTheDocument();
    expect(window.location.pathname).toBe('/no/such/page');
    expect(screen.queryByTestId('messages-page')).not.toBeInTheDocument();
    Object.defineProperty(window, 'scrollY', { value: 0, configurable: true });
    expect(scrollTo).toHaveBeenCalled();
  });

  it('draws the fallback page for a parameter out of range', async () => {
    renderAt('/game/abc');
    expect(await screen.findByText(eng['empty.page_not_found']!, {}, { timeout: 4000 })).toBeInTheDocument();
    expect(screen.getByRole('banner')).toBeInTheDocument(); // inside the member shell
  });

  it('draws the fallback page for a section the main menu does not name', async () => {
    renderAt('/live', ['prematch']);
    expect(await screen.findByText(eng['empty.page_not_found']!, {}, { timeout: 4000 })).toBeInTheDocument();
  });

  it('follows the back button (popstate)', async () => {
    renderAt('/messages');
    await screen.findByTestId('messages-page', {}, { timeout: 4000 });
    await act(async () => navigate('/nowhere'));
    await screen.findByText(eng['empty.page_not_found']!);
    await act(async () => {
      window.history.back();
      await new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
    });
    expect(await screen.findByTestId('messages-page')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/messages');
  });
});

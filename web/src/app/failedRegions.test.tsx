import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UnknownAction } from '@reduxjs/toolkit';
import { configureTransport } from '../api/transport';
import { betslipActions } from '../features/betslip/betslipSlice';
import { CONFIG_URL } from '../features/config/sagas';
import { historyActions } from '../features/history/historySlice';
import { languageUrl } from '../features/i18n/sagas';
import { uiActions } from '../features/shell/uiSlice';
import { sportActions } from '../features/sport/sportSlice';
import { PAIRS, mockApi, ok } from '../test/apiMock';
import { json } from '../test/fetchMock';
import { readSkin } from '../test/skins';
import { App } from './App';
import { navigate } from './router';
import { createAppStore, type RootState } from './store';

/**
 * The lazy regions stand-ins: each throws while drawing as long as its name is in `failing`,
 * and draws '<name> drawn' once it is not.
 */
const regions = vi.hoisted(() => {
  const failing = new Set<string>();
  const region = (name: string) => function Region() {
    if (failing.has(name)) throw new Error(`${name} failed to draw`);
    return `${name} drawn`;
  };
  return { failing, region };
});
vi.mock('../features/session/LoginPopup', async (original) => ({ ...(await original<object>()), LoginPopup: regions.region('LoginPopup') }));
vi.mock('../features/shell/LeftMenu', () => ({ LeftMenu: regions.region('LeftMenu') }));
vi.mock('../features/history/HistoryPages', async (original) => ({ ...(await original<object>()), BetRecordPanel: regions.region('BetRecordPanel') }));
vi.mock('../features/sport/SearchOverlay', () => ({ SearchOverlay: regions.region('SearchOverlay') }));
vi.mock('../features/betslip/BetslipPanel', async (original) => ({ ...(await original<object>()), BetslipPanel: regions.region('BetslipPanel') }));
vi.mock('../features/betslip/BetSuccessPopup', async (original) => ({ ...(await original<object>()), BetSuccessPopup: regions.region('BetSuccessPopup') }));
vi.mock('../features/content/ContentPages', async (original) => ({
  ...(await original<object>()),
  NewsDetail: ({ id }: { id: number }) => regions.region(`news ${id}`)(),
}));

const conf = readSkin('conf.json');
const eng = readSkin('languages/eng.json');
const guest = { getapitoken: () => ok({ apitoken: 'T' }), getconfig: () => ok({ public_key: 'PEM' }) };

async function renderAt(path: string) {
  window.history.pushState(null, '', path);
  localStorage.setItem('lang', 'eng');
  mockApi(guest, { [CONFIG_URL]: () => json(conf), [languageUrl('eng')]: () => json(eng) });
  const store = createAppStore();
  render(<Provider store={store}><App /></Provider>);
  await screen.findByRole('banner', {}, { timeout: 4000 }); // booted: the member shell is drawn
  return store;
}

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  vi.spyOn(console, 'error').mockImplementation(() => {}); // React and the boundary report the caught errors
});
afterEach(() => {
  regions.failing.clear();
  vi.unstubAllGlobals();
  window.history.pushState(null, '', '/');
});

const accepted = { bet_id: 9, type: 1, amount: '50', k: '1.85', events: [] };

/** Each region drawn over the page: the action that opens it, and whether the store still has it open. */
const OVERLAYS: Array<{ region: string; open: UnknownAction; isOpen: (s: RootState) => boolean }> = [
  { region: 'LoginPopup', open: uiActions.popupOpened({ name: 'login' }), isOpen: (s) => s.ui.popup !== null },
  { region: 'LeftMenu', open: uiActions.drawerToggled(true), isOpen: (s) => s.ui.drawerOpen },
  { region: 'BetRecordPanel', open: historyActions.panelToggled(true), isOpen: (s) => s.history.panelOpen },
  { region: 'SearchOverlay', open: sportActions.searchOpened(true), isOpen: (s) => s.sport.searchOpen },
  { region: 'BetslipPanel', open: betslipActions.opened(), isOpen: (s) => s.betslip.open },
  { region: 'BetSuccessPopup', open: betslipActions.placeAccepted(accepted), isOpen: (s) => s.betslip.success !== null || s.betslip.open },
];

describe('regions that fail to draw (ChunkBoundary at its call sites)', () => {
  it.each(OVERLAYS)('a failed overlay region can be closed and opened again: $region', async ({ region, open, isOpen }) => {
    const store = await renderAt('/messages');
    regions.failing.add(region);
    act(() => void store.dispatch(open));
    const error = await screen.findByTestId('chunk-error');
    expect(error).toHaveTextContent(eng['casino.error']!);
    fireEvent.click(within(error).getByRole('button', { name: eng['common.close'] }));
    expect(isOpen(store.getState())).toBe(false);
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
    regions.failing.delete(region);
    act(() => void store.dispatch(open));
    expect(await screen.findByText(`${region} drawn`)).toBeInTheDocument();
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });

  it('an error on one route is gone on the next route of the same screen', async () => {
    regions.failing.add('news 1');
    await renderAt('/news/1');
    expect(await screen.findByTestId('chunk-error', {}, { timeout: 4000 })).toHaveTextContent(eng['casino.error']!);
    await act(async () => navigate('/news/2'));
    expect(await screen.findByText('news 2 drawn')).toBeInTheDocument();
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });
});

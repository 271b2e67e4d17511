import { configureStore } from '@reduxjs/toolkit';
import { fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api/transport';
import { matchRoute } from '../../app/router';
import { rootReducer } from '../../app/store';
import { PAIRS, mockApi, ok } from '../../test/apiMock';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { sectionsOf, type CasinoGame } from './api';
import { DemoGamesPage } from './CasinoPage';

const eng = readSkin('languages/eng.json');
const game = (id: number, section: string): CasinoGame => ({
  id, provider: 'demo', name: `Game ${id}`, front_game_id: `g${id}`, extearnal_game_id: `g${id}`, game_options: '', link: '',
  types: { realMode: 1, viewMode: 0, funMode: 1 }, icon_1: '', icon_2: '', category: 'slots', section, game_type: '',
  favorite: 0, demo: true,
});
const GAMES = [game(1, 'casino'), game(2, 'live-casino'), game(3, 'casino')];

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => vi.unstubAllGlobals());

describe('/demo: the fun-mode games (spec 001 sections 2.1, 4 and 6)', () => {
  it('is a casino page of its own', () => {
    expect(matchRoute('/demo', [])).toEqual({ page: 'casino', section: 'demo' });
    expect(sectionsOf(GAMES)).toEqual(['casino', 'live-casino']);
  });

  it('lists the games with fun mode for a visitor, by section, and launches them in fun mode', async () => {
    const api = mockApi({
      thirdgamelist: () => ok({ list: GAMES, total_count: 3, providers: [], categories: [] }),
      casino_game_url: () => ok({ mode: 'fun', url: '/api/casino/demo/play?fun=1', loginurl: '' }),
    });
    const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
    store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
    render(<Provider store={store}><DemoGamesPage /></Provider>);
    expect(await screen.findAllByTestId('demo-game', {}, { timeout: 4000 })).toHaveLength(3);
    expect(api.calls[0]!.params).toEqual({ mode: 'fun', pagesize: 200 });
    expect(screen.getByTestId('demo-page').textContent).toContain(eng['casino.demo_login']);
    fireEvent.click(screen.getByTestId('casino-tab-live-casino'));
    expect(screen.getAllByTestId('demo-game')).toHaveLength(1);
    fireEvent.click(screen.getByTestId('demo-play'));
    const frame = await screen.findByTestId('casino-frame', {}, { timeout: 4000 });
    expect(frame.getAttribute('data-mode')).toBe('fun');
    expect(api.calls[1]!).toMatchObject({ path: 'casino_game_url', params: { game_id: 2, mode: 'fun' } });
  });
});

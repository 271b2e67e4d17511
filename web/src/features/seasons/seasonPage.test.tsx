import { configureStore } from '@reduxjs/toolkit';
import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api';
import { rootReducer } from '../../app/store';
import { PAIRS, mockApi, ok, refuse } from '../../test/apiMock';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { sessionActions } from '../session/sessionSlice';
import { SeasonPage } from './SeasonPages';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const RUNNING = {
  status: 'season', seasonid: 3, name: 'Season 3', starttime: '2026-09-01', endtime: '2026-12-10',
  start_ms: 1, end_ms: 2, daysleft: 13, previous: null, next: null,
};
const TASKS = { season: RUNNING, list: [], activedays: 2, needdays: 11 };

function renderPage(path: string, lang = 'eng') {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang, strings: readSkin(`languages/${lang}.json`) }));
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  render(<Provider store={store}><SeasonPage path={path} /></Provider>);
}

beforeEach(() => configureTransport({ pairs: PAIRS, reportLogs: false }));
afterEach(() => vi.unstubAllGlobals());

describe('the page of a season that has not started (spec 001 section 2.10)', () => {
  it('says Season N has not started yet and asks for no tasks or rank reward', async () => {
    const api = mockApi({
      'vipsystem/seasoninfo': () => ok(RUNNING),
      'vipsystem/seasontaskbonusinfo': () => refuse(-64004, 'off-season'),
      'activity/actinfo': () => refuse(-64004, 'off-season'),
    });
    renderPage('/s5season');
    expect(await screen.findByTestId('season-not-started')).toHaveTextContent('Season 5 has not started yet');
    expect(screen.queryByText('off-season')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('Season 3')).not.toBeInTheDocument();
    expect(api.calls.map((c) => c.path)).toEqual(['vipsystem/seasoninfo']);
  });

  it('names the start between seasons when the next season is the page\'s, in the page language', async () => {
    const next = { seasonid: 4, name: 'Season 4', starttime: '2027-01-01 00:00:00', endtime: '2027-04-10 00:00:00', start_ms: 1, end_ms: 2 };
    mockApi({ 'vipsystem/seasoninfo': () => ok({ status: 'off-season', seasonid: 0, previous: { ...next, seasonid: 3 }, next }) });
    renderPage('/s4season', 'zhh');
    expect(await screen.findByTestId('season-not-started')).toHaveTextContent('第4赛季尚未开始');
    expect(screen.getByText('将于 2027-01-01 00:00:00 开始。')).toBeInTheDocument();
  });

  it('a started season\'s page still shows its tasks', async () => {
    const api = mockApi({
      'vipsystem/seasoninfo': () => ok(RUNNING),
      'vipsystem/seasontaskbonusinfo': () => ok(TASKS),
      'activity/actinfo': () => ok({ aUserActInfo: { userrank: 0 } }),
      'user/useraddress': () => ok(null),
    });
    renderPage('/seasonMissionEn');
    expect(await screen.findByText('Season tasks')).toBeInTheDocument();
    expect(screen.queryByTestId('season-not-started')).not.toBeInTheDocument();
    expect(api.calls.map((c) => c.path)).toContain('vipsystem/seasontaskbonusinfo');
  });
});

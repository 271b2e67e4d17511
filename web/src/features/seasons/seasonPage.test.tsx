import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
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
    expect(await screen.findByTestId('season-not-started', {}, { timeout: 4000 })).toHaveTextContent('Season 5 has not started yet');
    expect(screen.queryByText('off-season')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('Season 3')).not.toBeInTheDocument();
    expect(api.calls.map((c) => c.path)).toEqual(['vipsystem/seasoninfo']);
  });

  it('names the start between seasons when the next season is the page\'s, in the page language', async () => {
    const next = { seasonid: 4, name: 'Season 4', starttime: '2027-01-01 00:00:00', endtime: '2027-04-10 00:00:00', start_ms: 1, end_ms: 2 };
    mockApi({ 'vipsystem/seasoninfo': () => ok({ status: 'off-season', seasonid: 0, previous: { ...next, seasonid: 3 }, next }) });
    renderPage('/s4season', 'zhh');
    expect(await screen.findByTestId('season-not-started', {}, { timeout: 4000 })).toHaveTextContent('第4赛季尚未开始');
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
    expect(await screen.findByText('Season tasks', {}, { timeout: 4000 })).toBeInTheDocument();
    expect(screen.queryByTestId('season-not-started')).not.toBeInTheDocument();
    expect(api.calls.map((c) => c.path)).toContain('vipsystem/seasontaskbonusinfo');
  });
});

describe('season refusals in the member language (docs/seasons.md codes)', () => {
  const zhh = readSkin('languages/zhh.json');
  const task = { id: 1, tasktype: 1, taskvalue: '5', nowvalue: '5', taskdesc: '在5个不同的日子投注', bonusname: '18', cash: '18', status: 1, needcheck: 0, percent: 100 };

  it.each([
    [-64003, 'Not eligible: you need more than 10 active days this season', '不符合领取条件：本赛季需活跃超过10天'],
    [-64001, 'The task is not completed yet', zhh['season.error.-64001']],
    [-64007, 'The claim was rejected: 重复账户', '领取已被拒绝：重复账户'],
  ])('a task claim refused with %i reads in zhh, not as the server\'s English', async (code, msg, text) => {
    mockApi({
      'vipsystem/seasoninfo': () => ok(RUNNING),
      'vipsystem/seasontaskbonusinfo': () => ok({ ...TASKS, list: [task] }),
      'vipsystem/getseasontaskbonus': () => refuse(code, msg),
      'activity/actinfo': () => ok({ aUserActInfo: { userrank: 0 } }),
      'user/useraddress': () => ok(null),
    });
    renderPage('/seasonMission', 'zhh');
    const claim = await screen.findByTestId('season-claim-1', {}, { timeout: 4000 });
    await act(async () => fireEvent.click(claim));
    const popup = await screen.findByTestId('season-reward-popup');
    expect(popup).toHaveTextContent(text!);
    expect(popup).not.toHaveTextContent(msg);
  });
});

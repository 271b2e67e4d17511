import { configureStore } from '@reduxjs/toolkit';
import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { describe, expect, it } from 'vitest';
import { matchSpec, matchRoute } from '../../app/routes';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { configActions } from '../config/configSlice';
import type { SiteConfig } from '../config/types';
import { i18nActions } from '../i18n/i18nSlice';
import { sessionActions } from '../session/sessionSlice';
import { LeftMenu } from './LeftMenu';
import { uiActions } from './uiSlice';

const conf = readSkin<SiteConfig>('conf.json');
const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };

function openMenu(lang: string, loggedIn = true) {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(configActions.loaded(conf));
  store.dispatch(i18nActions.loaded({ lang, strings: readSkin(`languages/${lang}.json`) }));
  if (loggedIn) {
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    store.dispatch(sessionActions.profileLoaded({ username: 'demo', nickname: 'Demo', vipname: 'Unranked' } as never));
  }
  store.dispatch(uiActions.drawerToggled(true));
  const view = render(<Provider store={store}><LeftMenu /></Provider>);
  const hrefs = Array.from(screen.getByTestId('left-menu').querySelectorAll('a[href]')).map((a) => a.getAttribute('href')!);
  return { hrefs, unmount: view.unmount };
}

describe('left menu links (spec 001 section 2.4)', () => {
  it.each(['zhh', 'eng', 'tha'])('every link of the member menu in %s opens a screen of the route table', (lang) => {
    const { hrefs, unmount } = openMenu(lang);
    expect(hrefs.length).toBeGreaterThan(5);
    for (const href of hrefs) {
      const path = href.split('?')[0]!;
      expect(matchRoute(path, conf.main_menu_order), href).not.toEqual({ page: 'notFound' });
      expect(matchSpec(path).spec.screen, href).not.toBe('fallback');
    }
    unmount();
  });

  it('has the bet records, user centre, season, tasks and honor hall that members reach', () => {
    const { unmount } = openMenu('eng');
    expect(screen.getByTestId('menu-bets').getAttribute('href')).toBe('/history/bets');
    expect(matchRoute('/history/bets', conf.main_menu_order)).toEqual({ page: 'historyBets' });
    expect(screen.getByTestId('menu-honor').getAttribute('href')).toBe('/hallofhonor');
    expect(screen.getByTestId('menu-tasks').getAttribute('href')).toBe('/novicetask');
    const hrefs = Array.from(screen.getByTestId('left-menu').querySelectorAll('a')).map((a) => a.getAttribute('href'));
    expect(hrefs).toContain('/usercenter');
    expect(hrefs).toContain('/usercenter/userinfo');
    unmount();
  });

  it('links the season page of the language: the Chinese one in zhh, the English one otherwise', () => {
    let view = openMenu('zhh');
    expect(screen.getByTestId('menu-season').getAttribute('href')).toBe('/seasonMission');
    expect(matchRoute('/seasonMission', conf.main_menu_order)).toEqual({ page: 'season', path: '/seasonMission' });
    view.unmount();
    view = openMenu('eng');
    expect(screen.getByTestId('menu-season').getAttribute('href')).toBe('/seasonMissionEn');
    view.unmount();
  });

  it('shows visitors login and register, and no member links', () => {
    const { hrefs, unmount } = openMenu('eng', false);
    expect(screen.getByTestId('menu-login')).toBeTruthy();
    expect(screen.getByTestId('menu-register')).toBeTruthy();
    expect(hrefs).toEqual([]);
    unmount();
  });
});

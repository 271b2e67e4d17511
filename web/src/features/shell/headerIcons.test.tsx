import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it } from 'vitest';
import { matchRoute } from '../../app/router';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { LiveChat } from '../livechat/LiveChat';
import { liveChat } from '../livechat/liveChat';
import { sessionActions } from '../session/sessionSlice';
import { HeaderIcons } from './HeaderIcons';
import { MainMenu } from './MainMenu';

const eng = readSkin('languages/eng.json');
const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };

function setup(loggedIn: boolean) {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  if (loggedIn) {
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    store.dispatch(sessionActions.profileLoaded({ username: 'demo', unread_count: 3 } as never));
  }
  render(<Provider store={store}><HeaderIcons /><MainMenu /><LiveChat floating /></Provider>);
  return store;
}

afterEach(() => act(() => liveChat.close()));

describe('header icons (spec 000 section 2)', () => {
  it('shows messages and support chat to visitors, plus profile and transfer to members', () => {
    setup(false);
    expect(screen.getByTestId('header-messages').getAttribute('href')).toBe('/messages');
    expect(screen.getByTestId('header-support')).toBeTruthy();
    expect(screen.queryByTestId('header-profile')).toBeNull();
    expect(screen.queryByTestId('header-transfer')).toBeNull();
  });

  it('gives members the profile and transfer icons and the unread count', () => {
    setup(true);
    expect(screen.getByTestId('header-profile').getAttribute('href')).toBe('/usercenter');
    expect(screen.getByTestId('header-transfer').getAttribute('href')).toBe('/usercenter/transfer');
    expect(screen.getByTestId('unread-count').textContent).toBe('3');
  });

  it('opens the live chat from the support icon and from the floating icon', () => {
    setup(false);
    fireEvent.click(screen.getByTestId('header-support'));
    expect(screen.getByTestId('live-chat').textContent).toContain(eng['livechat.standin']);
    expect(screen.queryByTestId('live-chat-button')).toBeNull();
    fireEvent.click(screen.getByTestId('live-chat-close'));
    expect(screen.queryByTestId('live-chat')).toBeNull();
    fireEvent.click(screen.getByTestId('live-chat-button'));
    expect(screen.getByTestId('live-chat')).toBeTruthy();
  });

  it('reaches Scores from the main menu and messages by its route', () => {
    setup(false);
    expect(screen.getByTestId('menu-scores').getAttribute('href')).toBe('/scores');
    expect(screen.getByTestId('menu-scores').textContent).toBe('Scores');
    expect(matchRoute('/messages', [])).toEqual({ page: 'messages' });
    expect(matchRoute('/messages/x', [])).toEqual({ page: 'notFound' });
  });
});

import { configureStore, type Middleware } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it } from 'vitest';
import { rootReducer } from '../../app/store';
import { startSaga } from '../../test/runSaga';
import { readLanguage } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { SAFER_PATH } from '../safer/paths';
import { sessionActions } from '../session/sessionSlice';
import { RealityCheckPopup, realityCheckOf } from './RealityCheckPopup';
import { REALITY_CHECK_TIP, realtimeActions } from './realtimeSlice';
import { handle } from './sagas';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const CHECK = { session_minutes: 65, stakes: '240.00', net: '-35.5', currency: 'CNY' };

afterEach(() => window.history.pushState(null, '', '/'));

describe('the reality check (a 1020 tip on /ws)', () => {
  it('reads the payload: minutes, and stakes and net as decimal strings', () => {
    expect(realityCheckOf(CHECK)).toEqual({ session_minutes: 65, stakes: '240.00', net: '-35.5', currency: 'CNY' });
    expect(realityCheckOf({ ...CHECK, net: '+12.00' })?.net).toBe('+12.00');
    expect(realityCheckOf({ ...CHECK, stakes: 'lots' })).toBeNull();
    expect(realityCheckOf({ stakes: '1', net: '0' })).toBeNull();
    expect(realityCheckOf(null)).toBeNull();
  });

  it('opens the modal instead of a pop-over tip, the newest check replacing an open one', async () => {
    const run = startSaga(handle, { type: REALITY_CHECK_TIP, data: CHECK });
    await run.task.toPromise();
    expect(run.dispatched).toEqual([realtimeActions.realityCheckReceived(CHECK)]);
    const store = configureStore({ reducer: rootReducer });
    store.dispatch(realtimeActions.realityCheckReceived(CHECK));
    store.dispatch(realtimeActions.realityCheckReceived({ ...CHECK, session_minutes: 95 }));
    expect(store.getState().realtime.realityCheck?.session_minutes).toBe(95);
    expect(store.getState().realtime.tips).toEqual([]);
  });
});

function renderPopup(lang: string) {
  const actions: string[] = [];
  const recorder: Middleware = () => (next) => (action) => (actions.push((action as { type: string }).type), next(action));
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }).concat(recorder) });
  store.dispatch(i18nActions.loaded({ lang, strings: readLanguage(lang) }));
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  store.dispatch(realtimeActions.realityCheckReceived(CHECK));
  render(<Provider store={store}><RealityCheckPopup /></Provider>);
  return { store, actions };
}

describe('the reality check modal', () => {
  it('says how long, the stakes and the net result; Continue closes it', () => {
    const { store } = renderPopup('eng');
    expect(screen.getByTestId('reality-check-text')).toHaveTextContent('You have been playing for 65 minutes.');
    expect(screen.getByTestId('reality-check-stakes')).toHaveTextContent('240.00 CNY');
    expect(screen.getByTestId('reality-check-net')).toHaveTextContent('-35.50 CNY');
    expect(screen.getByRole('dialog')).toHaveTextContent('Net result');
    fireEvent.click(screen.getByTestId('reality-check-continue'));
    expect(store.getState().realtime.realityCheck).toBeNull();
  });

  it('logs out as the app does, and links to the statement on the safer gambling page', () => {
    const { store, actions } = renderPopup('zhh');
    expect(screen.getByTestId('reality-check-text')).toHaveTextContent(readLanguage('zhh')['rg.reality.playing_other']!.replace('{1}', '65'));
    expect(screen.getByTestId('reality-check-history')).toHaveAttribute('href', `${SAFER_PATH}#statement`);
    fireEvent.click(screen.getByTestId('reality-check-logout'));
    expect(actions).toContain(sessionActions.logoutRequested.type);
    expect(store.getState().realtime.realityCheck).toBeNull();
  });

  it('uses the singular for one minute in English', () => {
    const store = configureStore({ reducer: rootReducer });
    store.dispatch(i18nActions.loaded({ lang: 'eng', strings: readLanguage('eng') }));
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    store.dispatch(realtimeActions.realityCheckReceived({ ...CHECK, session_minutes: 1, net: '5' }));
    render(<Provider store={store}><RealityCheckPopup /></Provider>);
    expect(screen.getByTestId('reality-check-text')).toHaveTextContent('You have been playing for 1 minute.');
    expect(screen.getByTestId('reality-check-net')).toHaveTextContent('+5.00 CNY');
  });
});

describe('a reality check that cannot show', () => {
  it('goes when it is malformed, or when the member is no longer logged in', () => {
    for (const [loggedIn, data] of [[true, { session_minutes: 'x', stakes: '1', net: '0' }], [false, CHECK]] as const) {
      const store = configureStore({ reducer: rootReducer });
      store.dispatch(i18nActions.loaded({ lang: 'eng', strings: readLanguage('eng') }));
      if (loggedIn) store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
      store.dispatch(realtimeActions.realityCheckReceived(data));
      const view = render(<Provider store={store}><RealityCheckPopup /></Provider>);
      expect(screen.queryByTestId('reality-check')).toBeNull();
      expect(store.getState().realtime.realityCheck).toBeNull();
      view.unmount();
    }
  });
});

describe('the reality check among the popups', () => {
  it('shows when no other popup is open, and waits behind one that is', async () => {
    const { Popups } = await import('../shell/Popups');
    const { uiActions } = await import('../shell/uiSlice');
    const store = configureStore({ reducer: rootReducer });
    store.dispatch(i18nActions.loaded({ lang: 'eng', strings: readLanguage('eng') }));
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    store.dispatch(uiActions.popupOpened({ name: 'forgot' }));
    store.dispatch(realtimeActions.realityCheckReceived(CHECK));
    render(<Provider store={store}><Popups /></Provider>);
    expect(screen.queryByTestId('reality-check')).toBeNull();
    act(() => void store.dispatch(uiActions.popupClosed()));
    expect(await screen.findByTestId('reality-check', {}, { timeout: 4000 })).toHaveTextContent('65 minutes');
  });
});

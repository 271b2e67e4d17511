import { configureStore } from '@reduxjs/toolkit';
import { fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { configActions } from '../config/configSlice';
import { i18nActions } from './i18nSlice';
import { LanguageSwitcher } from './LanguageSwitcher';
import { LANGUAGE_RELOAD_MS, i18nSaga } from './sagas';

const eng = readSkin('languages/eng.json');
const conf = readSkin('conf.json');

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function setup() {
  const remember = vi.fn();
  const reload = vi.fn();
  const saga = createSagaMiddleware();
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }).concat(saga) });
  store.dispatch(configActions.loaded(conf as never));
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  saga.run(i18nSaga, { remember, reload });
  render(<Provider store={store}><LanguageSwitcher /></Provider>);
  return { store, remember, reload };
}

describe('language switcher (zhh, eng, tha; reload after 500 ms)', () => {
  it('offers the three languages by their own names, the current one checked, with the time zone', () => {
    setup();
    expect(screen.getByTestId('lang-zhh').textContent).toBe('简体中文');
    expect(screen.getByTestId('lang-tha').textContent).toBe('ไทย');
    expect(screen.getByTestId('lang-eng').getAttribute('aria-checked')).toBe('true');
    expect(screen.getByTestId('language-note').textContent).toMatch(/GMT\+7/);
  });

  it('remembers the choice and reloads 500 ms later', async () => {
    const { store, remember, reload } = setup();
    fireEvent.click(screen.getByTestId('lang-tha'));
    expect(remember).toHaveBeenCalledWith('tha');
    expect(store.getState().i18n.switchingTo).toBe('tha');
    expect(screen.getByTestId('language-note').textContent).toBe(eng['lang.switching']);
    await vi.advanceTimersByTimeAsync(LANGUAGE_RELOAD_MS - 1);
    expect(reload).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('ignores the current language and one the skin does not offer', async () => {
    const { store, remember, reload } = setup();
    store.dispatch(i18nActions.switchRequested('eng'));
    store.dispatch(i18nActions.switchRequested('klingon'));
    await vi.advanceTimersByTimeAsync(LANGUAGE_RELOAD_MS * 2);
    expect(remember).not.toHaveBeenCalled();
    expect(reload).not.toHaveBeenCalled();
    expect(store.getState().i18n.switchingTo).toBeNull();
  });
});

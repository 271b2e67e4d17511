import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { DOWNLOAD_BANNER_MS } from './popupSchedule';
import { DownloadBanner } from './RuntimePopups';

function show(search = '') {
  window.history.replaceState(null, '', `/${search}`);
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: readSkin('languages/eng.json') }));
  render(<Provider store={store}><DownloadBanner /></Provider>);
}

describe('download-app banner (spec 001 sections 2.4, 4, 9)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    window.history.replaceState(null, '', '/');
  });

  it('hides after 60 s', () => {
    show();
    expect(screen.getByTestId('download-banner')).toBeTruthy();
    act(() => void vi.advanceTimersByTime(DOWNLOAD_BANNER_MS - 1));
    expect(screen.queryByTestId('download-banner')).toBeTruthy();
    act(() => void vi.advanceTimersByTime(1));
    expect(screen.queryByTestId('download-banner')).toBeNull();
  });

  it('hides on close', () => {
    show();
    fireEvent.click(screen.getByTestId('download-banner-close'));
    expect(screen.queryByTestId('download-banner')).toBeNull();
  });

  it('is not shown in native-app mode', () => {
    show('?isRNApp=true');
    expect(screen.queryByTestId('download-banner')).toBeNull();
  });
});

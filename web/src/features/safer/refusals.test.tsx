/**
 * The responsible gambling refusals where the member meets them (DESIGN.md "Responsible
 * gambling"): a bet, a deposit, a casino launch, in the member's language.
 */
import { configureStore } from '@reduxjs/toolkit';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api';
import { configureTransport } from '../../api/transport';
import { rootReducer } from '../../app/store';
import { PAIRS, mockApi, refuse } from '../../test/apiMock';
import { readLanguage } from '../../test/skins';
import { refusalMessage } from '../betslip/sagas';
import { useLauncher } from '../casino/CasinoPage';
import type { CasinoGame } from '../casino/api';
import { makeTranslator } from '../i18n/translate';
import { payError } from '../payments/api';

const LANGS = ['eng', 'zhh', 'tha'];

describe('responsible gambling refusals', () => {
  it('read on the betslip as their own message (do_bet result 2406, 2428, 2432, 2433)', () => {
    for (const code of [2406, 2428, 2432, 2433]) {
      expect(refusalMessage({ result: code } as Parameters<typeof refusalMessage>[0])).toEqual({ key: `error.${code}`, args: [] });
    }
  });

  it.each(LANGS)('read on the deposit and withdrawal pages in %s, never as the server text', (lang) => {
    const strings = readLanguage(lang);
    const t = makeTranslator(strings, lang);
    for (const code of [2406, 2428, 2431, 2434]) {
      const text = payError(t, new ApiError(code, { serverMsg: 'server text' }));
      expect(text, `${lang} ${code}`).toBe(strings[`error.${code}`]);
    }
  });
});

describe('a casino launch refused for a time-out', () => {
  beforeEach(() => {
    configureTransport({ pairs: PAIRS, reportLogs: false });
    localStorage.setItem('webKey', 'k');
  });
  afterEach(() => vi.unstubAllGlobals());

  it('says so instead of "the game could not open"', async () => {
    mockApi({ casino_game_url: () => refuse(2428, 'timed out') });
    const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }) });
    const wrapper = ({ children }: { children: ReactNode }) => <Provider store={store}>{children}</Provider>;
    const { result } = renderHook(() => useLauncher(), { wrapper });
    const game = { id: 1, game_type: '1', name: 'Slot' } as unknown as CasinoGame;
    await act(() => result.current.launch(game, 'real'));
    expect(store.getState().ui.notice).toMatchObject({ kind: 'warning', key: 'error.2428' });
    expect(result.current.maintenance).toEqual([]);
  });
});

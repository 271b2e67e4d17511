import { configureStore } from '@reduxjs/toolkit';
import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { describe, expect, it } from 'vitest';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { historyActions } from './historySlice';
import { HistoryBetPage } from './HistoryPages';
import type { BetRecord } from './model';

function renderDetail(record: BetRecord, lang: string) {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang, strings: readSkin(`languages/${lang}.json`) }));
  store.dispatch(historyActions.loaded([record]));
  const view = render(<Provider store={store}><HistoryBetPage id={String(record.id)} /></Provider>);
  return view.unmount;
}

describe('bet detail (/history/bet/{id})', () => {
  it('dates the bet with its day and time in the language zone, also for a bet placed today', () => {
    // 2027-01-15 12:00 UTC: 19:00 in Bangkok (eng), 20:00 China time (zhh)
    const at = Date.UTC(2027, 0, 15, 12, 0) / 1000;
    let unmount = renderDetail({ id: 41, type: 1, date_time: at, amount: '10.00', k: '2.000', outcome: 0, possible_win: '20.00' }, 'eng');
    expect(screen.getByTestId('bet-date')).toHaveTextContent('2027-01-15 19:00');
    unmount();
    unmount = renderDetail({ id: 42, type: 1, date_time: at, amount: '10.00', k: '2.000', outcome: 0, possible_win: '20.00' }, 'zhh');
    expect(screen.getByTestId('bet-date')).toHaveTextContent('2027-01-15 20:00');
    unmount();
    const now = Math.floor(Date.now() / 1000);
    unmount = renderDetail({ id: 43, type: 1, date_time: now, amount: '10.00', k: '2.000', outcome: 0, possible_win: '20.00' }, 'eng');
    expect(screen.getByTestId('bet-date').textContent).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    unmount();
  });
});

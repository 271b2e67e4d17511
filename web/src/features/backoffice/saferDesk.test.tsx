import { configureStore } from '@reduxjs/toolkit';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware, { type Saga } from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../../app/store';
import { envelope, mockFetch, type Handler } from '../../test/fetchMock';
import { readLanguage } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { makeTranslator } from '../i18n/translate';
import { BackofficeApp } from './BackofficeApp';
import { canUse, matchBackoffice } from './roles';
import { detailText, memberOf, timeoutProblems, userIdProblem, whatText } from './saferDesk';
import { STORAGE_KEY } from './storage';

const B = '/api/backoffice';
const LATER = 2_000_000_000;
const MEMBER = {
  user_id: '7',
  limits: [{ kind: 'deposit', period: 'day', amount: '100.00', used: '40.00', pending: { amount: '300.00', effective_at: LATER } }],
  timeout_until: 0, self_excluded_until: 0, reality_check_minutes: 30, currency: 'CNY',
  // as the server words them (commands/src/compliance/safer.rs change_of)
  history: [
    { at: LATER - 500, what: 'limit_set', by: 'member', detail: 'deposit per day: 100.00' },
    { at: LATER - 50, what: 'limit_raise_requested', by: 'member', detail: `deposit per day: 300.00 from ${LATER * 1000}` },
  ],
};

function renderDesk(path: string, routes: Record<string, Handler> = {}, lang = 'eng') {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token: 'T1', role: 'support', username: 'sup', expires: Date.now() + 3600_000 }));
  window.history.pushState(null, '', path);
  const spy = mockFetch({
    [`${B}/me`]: () => envelope({ username: 'sup', role: 'support' }),
    [`${B}/members/7/safer`]: () => envelope(MEMBER),
    ...routes,
  });
  const saga = createSagaMiddleware();
  const store = Object.assign(
    configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }).concat(saga) }),
    { runSaga: (s: Saga) => saga.run(s) },
  );
  store.dispatch(i18nActions.loaded({ lang, strings: readLanguage(lang) }));
  render(<Provider store={store}><BackofficeApp /></Provider>);
  return spy;
}

const bodyOf = (spy: ReturnType<typeof mockFetch>, url: string) => {
  const call = spy.mock.calls.filter(([u]) => u === url).at(-1);
  return call ? JSON.parse(String((call[1] as RequestInit).body)) : undefined;
};
const wait = { timeout: 4000 };

beforeEach(() => sessionStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
  window.history.pushState(null, '', '/');
});

describe('safer gambling desk rules', () => {
  it('is for support and admins, at /backoffice/safer[/{userId}]', () => {
    expect(canUse('support', 'safer')).toBe(true);
    expect(canUse('admin', 'safer')).toBe(true);
    expect(canUse('marketing', 'safer')).toBe(false);
    expect(matchBackoffice('/backoffice/safer/7')).toEqual({ section: 'safer', betId: '7' });
    expect(matchBackoffice('/backoffice/safer/x').section).toBe('unknown');
  });

  it('reads a member with the history newest first', () => {
    const m = memberOf(MEMBER);
    expect(m.history.map((h) => h.what)).toEqual(['limit_raise_requested', 'limit_set']);
    expect(m.limits[0]!.pending).toEqual({ amount: '300.00', effective_at: LATER });
    expect(memberOf({ history: [{ at: 1, what: 'x', by: 'sup', detail: { hours: 24 } }] }).history[0]!.detail).toBe('{"hours":24}');
  });

  it('shows the unix milliseconds of a detail as a time', () => {
    expect(detailText(`until ${LATER * 1000}: asked by phone`, (ms) => `<${ms / 1000}>`)).toBe(`until <${LATER}>: asked by phone`);
    expect(detailText('deposit per day: 100.00', String)).toBe('deposit per day: 100.00');
  });

  it('needs a user id of digits, a time-out of the member lengths with a reason of at most 200 characters', () => {
    expect(userIdProblem('7')).toBeNull();
    expect(userIdProblem('seven')).toEqual({ key: 'bo.safer.v.user_id' });
    expect(timeoutProblems(168, 'asked by phone')).toEqual({});
    expect(timeoutProblems(5, ' ')).toEqual({ hours: { key: 'validation.required' }, reason: { key: 'bo.v.reason' } });
    expect(timeoutProblems(24, 'x'.repeat(201)).reason).toEqual({ key: 'bo.safer.v.reason_max', args: [200] });
    expect(timeoutProblems(24, '冷'.repeat(200))).toEqual({});
  });

  it("names the history's changes in the staff language, an unknown one as sent", () => {
    for (const lang of ['eng', 'zhh', 'tha']) {
      const strings = readLanguage(lang);
      const t = makeTranslator(strings, lang);
      for (const what of ['limit_set', 'limit_raise_requested', 'limit_removal_requested', 'time_out', 'self_exclusion', 'reality_check']) {
        expect(whatText(t, what), `${lang} ${what}`).toBe(strings[`bo.safer.what.${what}`]);
      }
      expect(whatText(t, 'Teleported')).toBe('Teleported');
    }
  });
});

describe('safer gambling desk', () => {
  it("looks a member up and shows the limits, the state and the history", async () => {
    renderDesk('/backoffice/safer');
    fireEvent.change(await screen.findByTestId('bo-safer-user', {}, wait), { target: { value: '7' } });
    fireEvent.click(screen.getByTestId('bo-safer-find'));
    const member = await screen.findByTestId('bo-safer-member', {}, wait);
    expect(window.location.pathname).toBe('/backoffice/safer/7');
    expect(within(member).getByTestId('rg-limit-deposit-day')).toHaveTextContent('Used 40.00 of 100.00');
    expect(within(member).getByTestId('rg-limit-deposit-day')).toHaveTextContent('Rises to 300.00 on 2033-05-18');
    expect(screen.getByTestId('bo-safer-state')).toHaveAttribute('data-kind', 'none');
    const rows = screen.getAllByTestId('bo-safer-history-row');
    expect(rows[0]).toHaveTextContent('Limit raise requested (after 24 hours)');
    expect(rows[0]).toHaveTextContent('2033-05-18');
    expect(rows[1]).toHaveTextContent('Limit set');
    expect(screen.queryByText(/lift/i, { selector: 'button' })).toBeNull(); // there is nothing that lifts a time-out
  });

  it('starts a time-out only with a reason and after the confirmation naming the member and the length', async () => {
    const until = LATER;
    const spy = renderDesk('/backoffice/safer/7', {
      [`${B}/members/7/timeout`]: () => envelope({ ...MEMBER, timeout_until: until, history: [...MEMBER.history, { at: LATER, what: 'time_out', by: 'staff:sup', detail: `until ${LATER * 1000}: asked by phone` }] }),
    });
    await screen.findByTestId('bo-safer-member', {}, wait);
    fireEvent.click(screen.getByTestId('bo-safer-timeout-start'));
    expect(screen.getByTestId('bo-safer-timeout')).toHaveTextContent('A reason is required');
    expect(screen.queryByTestId('bo-safer-confirm')).toBeNull();
    fireEvent.change(screen.getByTestId('bo-safer-hours'), { target: { value: '336' } });
    fireEvent.change(screen.getByTestId('bo-safer-reason'), { target: { value: 'asked by phone' } });
    fireEvent.click(screen.getByTestId('bo-safer-timeout-start'));
    expect(screen.getByTestId('bo-safer-confirm-text')).toHaveTextContent('Start a time-out of 2 weeks for member 7? It cannot be lifted before its end.');
    fireEvent.click(screen.getByTestId('bo-safer-confirm-ok'));
    expect(await screen.findByTestId('bo-safer-done', {}, wait)).toHaveTextContent('Member 7 is in a time-out of 2 weeks.');
    expect(bodyOf(spy, `${B}/members/7/timeout`)).toEqual({ hours: 336, reason: 'asked by phone' });
    expect(screen.getByTestId('bo-safer-state')).toHaveAttribute('data-kind', 'timeout');
    expect(screen.getAllByTestId('bo-safer-history-row')[0]).toHaveTextContent('Time-out started');
  });
});

import { configureStore } from '@reduxjs/toolkit';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware, { type Saga } from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api/transport';
import { rootReducer } from '../../app/store';
import { PAIRS, mockApi, ok, refuse, type ApiHandler } from '../../test/apiMock';
import { readLanguage } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { sessionActions } from '../session/sessionSlice';
import { SaferGamblingPage, limitDone } from './SaferPage';
import { confirmation } from './BreakSections';
import { settingsOf } from './model';

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };
const LATER = 2_000_000_000; // 2033-05-18
const WIRE = {
  limits: [
    { kind: 'deposit', period: 'day', amount: '100.00', used: '20.00' },
    { kind: 'loss', period: 'week', amount: '500.00', used: '125.00', pending: { amount: '800.00', effective_at: LATER } },
  ],
  timeout_until: 0, self_excluded_until: 0, reality_check_minutes: 0, currency: 'CNY',
};

function setup(lang = 'eng', handlers: Record<string, ApiHandler> = {}) {
  const api = mockApi({ 'user/rglimits': () => ok(WIRE), ...handlers });
  const saga = createSagaMiddleware();
  const store = Object.assign(
    configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }).concat(saga) }),
    { runSaga: (s: Saga) => saga.run(s) },
  );
  store.dispatch(i18nActions.loaded({ lang, strings: readLanguage(lang) }));
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  render(<Provider store={store}><SaferGamblingPage /></Provider>);
  return { api, store, strings: readLanguage(lang) };
}

const type = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } });
const wait = { timeout: 4000 };

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => vi.unstubAllGlobals());

describe('the safer gambling page', () => {
  it('shows each limit with what is used and the change that waits; no banner while nothing runs', async () => {
    setup();
    const deposit = await screen.findByTestId('rg-limit-deposit-day', {}, wait);
    expect(deposit).toHaveTextContent('100.00 CNY');
    expect(deposit).toHaveTextContent('Used 20.00 of 100.00');
    expect(screen.getByTestId('rg-limit-loss-week')).toHaveTextContent('Rises to 800.00 on 2033-05-18');
    expect(screen.getByTestId('rg-limit-stake-month')).toHaveTextContent('No limit');
    expect(screen.queryByTestId('rg-restriction')).toBeNull();
    expect(screen.getByTestId('rg-limit-form')).toHaveTextContent('A lower limit applies at once. A higher limit, or removing a limit, applies after 24 hours.');
  });

  it('picks a row into the form, says when the change applies, and saves it', async () => {
    const answer = { ...WIRE, limits: [{ ...WIRE.limits[0], pending: { amount: '150.00', effective_at: LATER } }, WIRE.limits[1]] };
    const { api } = setup('eng', { 'user/rglimitset': () => ok(answer) });
    const row = await screen.findByTestId('rg-limit-deposit-day', {}, wait);
    fireEvent.click(within(row).getByTestId('rg-limit-choose'));
    expect(screen.getByTestId('rg-limit-current')).toHaveTextContent('Current limit: 100.00 CNY');
    type('field-rg-amount', '80');
    expect(screen.getByTestId('rg-limit-timing')).toHaveTextContent('This limit applies at once.');
    type('field-rg-amount', '150');
    expect(screen.getByTestId('rg-limit-timing')).toHaveTextContent('This change applies after 24 hours.');
    fireEvent.click(screen.getByTestId('rg-limit-save'));
    expect(await screen.findByTestId('rg-limit-ok', {}, wait)).toHaveTextContent('Saved. Your limit rises to 150.00 on 2033-05-18');
    expect(api.last('user/rglimitset')!.params).toEqual({ kind: 'deposit', period: 'day', amount: '150' });
  });

  it('refuses an amount that is not one, and removes a limit with an empty amount', async () => {
    const { api } = setup('eng', { 'user/rglimitset': () => ok(WIRE) });
    await screen.findByTestId('rg-limit-form', {}, wait);
    expect(screen.queryByTestId('rg-limit-remove')).not.toBeNull(); // deposit/day is set
    type('field-rg-amount', '0');
    fireEvent.click(screen.getByTestId('rg-limit-save'));
    expect(screen.getByTestId('error-rg-amount')).toHaveTextContent('Enter an amount above 0');
    expect(api.last('user/rglimitset')).toBeUndefined();
    fireEvent.click(screen.getByTestId('rg-limit-remove'));
    await vi.waitFor(() => expect(api.last('user/rglimitset')?.params).toEqual({ kind: 'deposit', period: 'day', amount: '' }), wait);
    type('field-rg-period', 'month');
    expect(screen.queryByTestId('rg-limit-remove')).toBeNull(); // nothing to remove there
  });

  it('asks before a time-out, saying what it closes, what stays open, and that it cannot be undone', async () => {
    const until = Math.floor(Date.now() / 1000) + 168 * 3600;
    const { api } = setup('eng', { 'user/timeout': () => ok({ ...WIRE, timeout_until: until }) });
    fireEvent.click(await screen.findByTestId('rg-timeout-168', {}, wait));
    fireEvent.click(screen.getByTestId('rg-timeout-start'));
    const dialog = screen.getByTestId('rg-confirm');
    expect(dialog).toHaveTextContent('A time-out of 7 days?');
    expect(dialog).toHaveTextContent('No bets, deposits, casino games for real money or promotions until the end.');
    expect(dialog).toHaveTextContent('You can still log in, see your account and withdraw.');
    expect(dialog).toHaveTextContent('A time-out cannot be undone.');
    fireEvent.click(screen.getByTestId('rg-confirm-cancel'));
    expect(screen.queryByTestId('rg-confirm')).toBeNull();
    expect(api.last('user/timeout')).toBeUndefined();
    fireEvent.click(screen.getByTestId('rg-timeout-start'));
    fireEvent.click(screen.getByTestId('rg-confirm-ok'));
    const banner = await screen.findByTestId('rg-restriction', {}, wait);
    expect(api.last('user/timeout')!.params).toEqual({ hours: 168 });
    expect(banner).toHaveAttribute('data-kind', 'timeout');
    expect(banner).toHaveTextContent('You are taking a time-out until');
    expect(screen.getByTestId('rg-timeout-ok')).toHaveTextContent('Your time-out runs until');
  });

  it('asks before a self-exclusion, stating it cannot be shortened or lifted; the call takes months', async () => {
    const { api } = setup('eng', { 'user/selfexclude': () => ok({ ...WIRE, self_excluded_until: LATER }) });
    fireEvent.click(await screen.findByTestId('rg-selfexclude-60', {}, wait));
    fireEvent.click(screen.getByTestId('rg-selfexclude-start'));
    expect(screen.getByTestId('rg-confirm')).toHaveTextContent('Exclude yourself for 5 years?');
    expect(screen.getByTestId('rg-confirm')).toHaveTextContent('A self-exclusion cannot be shortened or lifted before its end.');
    fireEvent.click(screen.getByTestId('rg-confirm-ok'));
    expect(await screen.findByTestId('rg-restriction', {}, wait)).toHaveTextContent('You are self-excluded until 2033-05-18');
    expect(api.last('user/selfexclude')!.params).toEqual({ months: 60 });
  });

  it('shows a refusal in the member language (zhh: a time-out while self-excluded)', async () => {
    const { strings } = setup('zhh', { 'user/timeout': () => refuse(2406, 'Self-excluded') });
    fireEvent.click(await screen.findByTestId('rg-timeout-start', {}, wait));
    fireEvent.click(screen.getByTestId('rg-confirm-ok'));
    expect(await screen.findByTestId('rg-timeout-error', {}, wait)).toHaveTextContent(strings['error.2406']!);
  });

  it('sets the reality check interval in minutes', async () => {
    const { api } = setup('eng', { 'user/realitycheck': () => ok({ ...WIRE, reality_check_minutes: 120 }) });
    expect(await screen.findByTestId('rg-reality-current', {}, wait)).toHaveTextContent('Now: Off');
    const options = [...(screen.getByTestId('field-rg-reality') as HTMLSelectElement).options].map((o) => o.value);
    expect(options).toEqual(['0', '10', '20', '30', '60', '120', '240', '360', '480']);
    type('field-rg-reality', '120');
    fireEvent.click(screen.getByTestId('rg-reality-save'));
    expect(await screen.findByTestId('rg-reality-ok', {}, wait)).toHaveTextContent('Saved: 2 hours.');
    expect(api.last('user/realitycheck')!.params).toEqual({ minutes: 120 });
  });

  it('opens with the running self-exclusion at the top, in the member language', async () => {
    const { strings } = setup('tha', { 'user/rglimits': () => ok({ ...WIRE, self_excluded_until: LATER }) });
    const banner = await screen.findByTestId('rg-restriction', {}, wait);
    expect(banner).toHaveTextContent(strings['rg.banner.self_exclusion']!.replace('{1}', '2033-05-18'));
    expect(screen.getByTestId('safer-page').firstElementChild).toBe(banner);
  });
});

describe('what the page says after a change, and in the confirmation', () => {
  it('names when a limit change applies', () => {
    const s = settingsOf({ limits: [
      { kind: 'deposit', period: 'day', amount: '50', used: '0' },
      { kind: 'stake', period: 'week', amount: '50', used: '0', pending: { amount: null, effective_at: LATER } },
    ] });
    expect(limitDone(s, 'deposit', 'day')).toEqual({ key: 'rg.limits.done_now', args: ['50.00'] });
    expect(limitDone(s, 'stake', 'week').key).toBe('rg.limits.done_remove');
    expect(limitDone(s, 'loss', 'month').key).toBe('rg.limits.done_removed');
  });

  it('counts the end of a time-out in hours and of a self-exclusion in months from the moment asked', () => {
    const at = Date.UTC(2030, 0, 1, 0, 0); // 07:00 in Bangkok
    expect(confirmation('timeout', 48, at)).toMatchObject({ lengthKey: 'rg.timeout.length.48', until: '2030-01-03 07:00' });
    expect(confirmation('selfexclude', 12, at)).toMatchObject({ lengthKey: 'rg.exclusion.length.12', until: '2031-01-01 07:00' });
    expect(confirmation('selfexclude', 6, at).lines).toContain('rg.exclusion.final');
  });
});

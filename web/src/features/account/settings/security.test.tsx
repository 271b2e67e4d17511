import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import createSagaMiddleware, { type SagaIterator } from 'redux-saga';
import { fork, takeLatest } from 'redux-saga/effects';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../../api/transport';
import { matchRoute } from '../../../app/router';
import { rootReducer } from '../../../app/store';
import { PAIRS, mockApi, ok, refuse, type ApiCall } from '../../../test/apiMock';
import { readSkin } from '../../../test/skins';
import { i18nActions } from '../../i18n/i18nSlice';
import { fetchProfile } from '../../session/sagas';
import { sessionActions } from '../../session/sessionSlice';
import type { UserInfo } from '../../session/types';
import { formsSaga } from '../sagas';
import { ChangeLoginSteps, ChoseWaySet, EmailAddress, MyBirth, SafeCertificate, UntiedContact } from './SecurityPages';
import { PhoneBind } from './SettingsPages';
import { birthBounds, birthEditable, birthRule, certificateHref, stepsHref, unbindBlocked, waysFor } from './security';

const eng = readSkin('languages/eng.json');
const AUTH = { auth_token: 'tok', user_id: '7', username: 'p', expires: Date.now() + 600_000, never_expires: false };
const PROFILE = {
  username: 'p', phone: '139****9000', email: '', has_security_question: true, security_question: 'Pet?', birth_date: '',
} as unknown as UserInfo;

function* testSaga(): SagaIterator {
  yield fork(formsSaga);
  yield takeLatest(sessionActions.profileRequested.type, fetchProfile);
}

/** A logged-in member's store with the forms and profile sagas, and the page drawn in it. */
function setup(page: React.ReactNode, profile: Partial<UserInfo> = {}, handlers: Parameters<typeof mockApi>[0] = {}) {
  const info = { ...PROFILE, ...profile };
  const api = mockApi({ 'user/userinfo': () => ok(info), ...handlers });
  const saga = createSagaMiddleware();
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }).concat(saga) });
  saga.run(testSaga);
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
  store.dispatch(sessionActions.profileLoaded(info));
  const view = render(<Provider store={store}>{page}</Provider>);
  return { api, store, view };
}

const type = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } });
const calls = (api: { calls: ApiCall[] }, path: string) => api.calls.filter((c) => c.path === path);
const wait = { timeout: 4000 };

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => {
  vi.unstubAllGlobals();
  window.history.pushState(null, '', '/');
});

describe('security rules (spec 001 sections 2.1, 3 and 5)', () => {
  it('numbers the ways and items of the step routes from 1, and only those', () => {
    expect(stepsHref('phone')).toBe('/setting/changeloginsteps/1');
    expect(stepsHref('question')).toBe('/setting/changeloginsteps/3');
    expect(certificateHref('email')).toBe('/setting/safecertificate/2');
    expect(matchRoute(stepsHref('email'), [])).toEqual({ page: 'loginSteps', way: 'email' });
    expect(matchRoute(certificateHref('phone'), [])).toEqual({ page: 'safeCertificate', item: 'phone' });
    for (const bad of ['/setting/changeloginsteps/0', '/setting/changeloginsteps/x', '/setting/safecertificate/3']) {
      expect(matchRoute(bad, []).page, bad).toBe('notFound');
    }
  });

  it('offers a way only when the profile has it: a bound phone or e-mail, a set question', () => {
    const ways = waysFor(PROFILE);
    expect(ways.map((w) => [w.way, w.available, w.shows])).toEqual([
      ['phone', true, '139****9000'], ['email', false, ''], ['question', true, 'Pet?'],
    ]);
    expect(waysFor(null).every((w) => !w.available)).toBe(true);
  });

  it('keeps one contact bound: unbinding needs the other one', () => {
    expect(unbindBlocked({ phone: '1', email: '' }, 'phone')).toEqual({ key: 'error.-10106', args: [] });
    expect(unbindBlocked({ phone: '1', email: 'a' }, 'phone')).toBeNull();
    expect(unbindBlocked({ phone: '1', email: '' }, 'email')).toEqual({ key: 'security.no_email', args: [] });
  });

  it('accepts birth dates from 18 to 100 years ago, real calendar days only, and sets them once', () => {
    const today = new Date(2026, 5, 15);
    expect(birthRule('2008-06-15', today)).toBeNull();
    expect(birthRule('2008-06-16', today)).toEqual({ key: 'validation.value_invalid', args: ['16/06/2008'] });
    expect(birthRule('1926-06-16', today)).toBeNull();
    expect(birthRule('1925-06-15', today)?.key).toBe('validation.value_invalid');
    expect(birthRule('1990-02-30', today)).toEqual({ key: 'validation.value_invalid', args: ['1990-02-30'] });
    expect(birthRule('', today)).toEqual({ key: 'validation.required', args: [] });
    expect(birthBounds(today)).toEqual({ min: '1926-06-15', max: '2008-06-15' });
    expect(birthEditable({ birth_date: '' })).toBe(true);
    expect(birthEditable({ birth_date: '1990-05-20' })).toBe(false);
  });
});

describe('/setting/chosewayset', () => {
  it('links each available way to its steps and the missing ones to where they are set up', () => {
    setup(<ChoseWaySet />);
    expect(screen.getByTestId('way-phone').querySelector('a')!.getAttribute('href')).toBe('/setting/changeloginsteps/1');
    expect(screen.getByTestId('way-email').textContent).toContain(eng['security.no_email']);
    expect(screen.getByTestId('way-email').querySelector('a')!.getAttribute('href')).toBe('/setting/mailbind');
    expect(screen.getByTestId('way-question').querySelector('a')!.getAttribute('href')).toBe('/setting/changeloginsteps/3');
  });
});

describe('/setting/changeloginsteps/{changetype}', () => {
  it('sets a new password after the security answer: questioncheck, then loginpassedit with its uid', async () => {
    const { api } = setup(<ChangeLoginSteps way="question" />, {}, {
      'user/questioncheck': () => ok({ uid: 'QUESTIONUID00001' }),
      'user/loginpassedit': () => ok(null),
    });
    expect(screen.getByTestId('question').textContent).toBe('Pet?');
    fireEvent.click(screen.getByTestId('verify-submit'));
    expect(calls(api, 'user/questioncheck')).toHaveLength(0); // the answer is required
    type('field-answer', ' rex ');
    fireEvent.click(screen.getByTestId('verify-submit'));
    await screen.findByTestId('new-password', {}, wait);
    expect(calls(api, 'user/questioncheck')[0]!.params).toEqual({ question: 'Pet?', answer: 'rex' });
    type('field-newpass', 'next1234');
    type('field-confirm', 'next9999');
    fireEvent.click(screen.getByTestId('settings-submit'));
    expect(screen.getByTestId('new-password').textContent).toContain(eng['validation.password_mismatch']);
    type('field-confirm', 'next1234');
    fireEvent.click(screen.getByTestId('settings-submit'));
    await screen.findByTestId('steps-done', {}, wait);
    expect(calls(api, 'user/loginpassedit')[0]!.params).toEqual({
      uid: 'QUESTIONUID00001', valtype: 3, newpass: 'next1234', confirm_newpass: 'next1234',
    });
    expect(screen.getByTestId('steps').getAttribute('data-step')).toBe('2');
  });

  it('sends the safety code to the bound phone and checks it before the new password', async () => {
    const { api } = setup(<ChangeLoginSteps way="phone" />, {}, {
      sendcode: () => ok({ uid: 'SENT000000000001' }),
      checkcode: () => ok({ uid: 'SENT000000000001', username: 'p' }),
    });
    expect(screen.getByTestId('verify-identity').textContent).toContain('139****9000');
    fireEvent.click(screen.getByTestId('send-code'));
    await act(async () => { await vi.waitFor(() => expect(calls(api, 'sendcode')).toHaveLength(1), wait); });
    expect(calls(api, 'sendcode')[0]!.params).toEqual({ type: 8, valtype: 1, username: 'p' });
    type('field-code', '1234');
    fireEvent.click(screen.getByTestId('verify-submit'));
    await screen.findByTestId('new-password', {}, wait);
    expect(calls(api, 'checkcode')[0]!.params).toEqual({ uid: 'SENT000000000001', type: 8, valtype: 1, checkCode: '1234', username: 'p' });
  });

  it('points to the setup when the way is missing, and shows a refused answer', async () => {
    setup(<ChangeLoginSteps way="email" />);
    expect(screen.getByTestId('way-missing').querySelector('a')!.getAttribute('href')).toBe('/setting/mailbind');
  });

  it('shows the wait of too many answers', async () => {
    setup(<ChangeLoginSteps way="question" />, {}, {
      'user/questioncheck': () => refuse(-10108, 'Too many wrong answers, please try again in 60 seconds', { wait: 60 }),
    });
    type('field-answer', 'max');
    fireEvent.click(screen.getByTestId('verify-submit'));
    expect((await screen.findByTestId('settings-error', {}, wait)).textContent).toBe('Too many wrong answers, please try again in 60 seconds');
  });
});

describe('/setting/safecertificate/{changetype} then the bind page', () => {
  it('checks a code of the bound phone, hands its uid to /setting/phonebind as old_uid', async () => {
    const { api, store, view } = setup(<SafeCertificate item="phone" />, {}, {
      sendcode: ({ params }) => ok({ uid: params.type === 8 ? 'OLD0000000000001' : 'NEW0000000000001' }),
      checkcode: ({ params }) => ok({ uid: params.uid, username: 'p' }),
      'user/mobileupdate': () => ok(null),
    });
    fireEvent.click(screen.getByTestId('send-code'));
    await act(async () => { await vi.waitFor(() => expect(calls(api, 'sendcode')).toHaveLength(1), wait); });
    type('field-code', '1111');
    fireEvent.click(screen.getByTestId('verify-submit'));
    await act(async () => { await vi.waitFor(() => expect(window.location.pathname).toBe('/setting/phonebind'), wait); });
    expect(store.getState().forms['certificate:phone']!.data).toEqual({ uid: 'OLD0000000000001' });

    view.rerender(<Provider store={store}><PhoneBind /></Provider>);
    expect(screen.getByTestId('certified')).toBeTruthy();
    expect(screen.queryByTestId('field-old_code')).toBeNull();
    type('field-mobile', '0812345678');
    fireEvent.click(screen.getByTestId('send-code'));
    await act(async () => { await vi.waitFor(() => expect(calls(api, 'sendcode')).toHaveLength(2), wait); });
    type('field-code', '2222');
    type('field-loginpass', 'abc12345');
    fireEvent.click(screen.getByTestId('settings-submit'));
    await screen.findByTestId('settings-ok', {}, wait);
    expect(calls(api, 'checkcode').map((c) => c.params.type)).toEqual([8, 2]);
    expect(calls(api, 'user/mobileupdate')[0]!.params).toEqual({
      mobile: '0812345678', loginpass: 'abc12345', old_uid: 'OLD0000000000001', uid: 'NEW0000000000001',
    });
    expect(store.getState().forms['certificate:phone']).toBeUndefined(); // spent
  });

  it('needs no check before a first binding', () => {
    setup(<SafeCertificate item="email" />);
    expect(screen.getByTestId('nothing-bound').querySelector('a')!.getAttribute('href')).toBe('/setting/mailbind');
  });
});

describe('/setting/untiedphone and /setting/untiedmail', () => {
  it('refuses to unbind the only contact and sends to binding the other one', () => {
    setup(<UntiedContact item="phone" />);
    const blocked = screen.getByTestId('untie-blocked');
    expect(blocked.textContent).toContain(eng['error.-10106']);
    expect(blocked.querySelector('a')!.getAttribute('href')).toBe('/setting/mailbind');
  });

  it('unbinds with a code from the contact and the password', async () => {
    const { api } = setup(<UntiedContact item="email" />, { email: 'm***@x.com' }, {
      sendcode: () => ok({ uid: 'MAIL000000000001' }),
      checkcode: () => ok({ uid: 'MAIL000000000001', username: 'p' }),
      'user/emailunbind': () => ok(null),
    });
    fireEvent.click(screen.getByTestId('send-code'));
    await act(async () => { await vi.waitFor(() => expect(calls(api, 'sendcode')).toHaveLength(1), wait); });
    expect(calls(api, 'sendcode')[0]!.params).toEqual({ type: 8, valtype: 2, username: 'p' });
    type('field-code', '4321');
    fireEvent.click(screen.getByTestId('settings-submit'));
    expect(calls(api, 'user/emailunbind')).toHaveLength(0); // the password is required
    type('field-loginpass', 'abc12345');
    fireEvent.click(screen.getByTestId('settings-submit'));
    await screen.findByTestId('untie-done', {}, wait);
    expect(calls(api, 'user/emailunbind')[0]!.params).toEqual({ loginpass: 'abc12345', uid: 'MAIL000000000001' });
  });
});

describe('/setting/emailadress', () => {
  it('offers change (after the check) and unbinding for a bound e-mail, binding otherwise', () => {
    const bound = setup(<EmailAddress />, { email: 'm***@x.com' });
    expect(screen.getByTestId('email-address').textContent).toContain('m***@x.com');
    expect(screen.getByTestId('email-change').getAttribute('href')).toBe('/setting/safecertificate/2');
    expect(screen.getByTestId('email-untie').getAttribute('href')).toBe('/setting/untiedmail');
    bound.view.unmount();
    setup(<EmailAddress />);
    expect(screen.getByTestId('email-address').textContent).toContain(eng['security.not_bound']);
    expect(screen.getByTestId('email-bind').getAttribute('href')).toBe('/setting/mailbind');
  });
});

describe('/setting/mybirth', () => {
  it('refuses an age under 18 before any call, then sets the date once', async () => {
    const { api } = setup(<MyBirth />, {}, { 'user/birthdateupdate': () => ok(null) });
    const now = new Date();
    const iso = (years: number) => `${now.getFullYear() - years}-01-01`;
    type('field-birth_date', iso(17));
    fireEvent.click(screen.getByTestId('settings-submit'));
    expect(screen.getByTestId('error-birth_date').textContent).toBe(`Value 01/01/${now.getFullYear() - 17} is not valid.`);
    expect(calls(api, 'user/birthdateupdate')).toHaveLength(0);
    type('field-birth_date', '1990-05-20');
    fireEvent.click(screen.getByTestId('settings-submit'));
    await screen.findByTestId('birth-view', {}, wait);
    expect(calls(api, 'user/birthdateupdate')[0]!.params).toEqual({ birth_date: '1990-05-20' });
    expect(screen.getByTestId('birth-date').textContent).toBe('20/05/1990');
  });

  it('shows a set date read-only', () => {
    setup(<MyBirth />, { birth_date: '1985-12-01' });
    expect(screen.getByTestId('birth-date').textContent).toBe('01/12/1985');
    expect(screen.queryByTestId('birth-form')).toBeNull();
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTransport } from '../../api/transport';
import { PAIRS, mockApi, ok, refuse } from '../../test/apiMock';
import { startSaga } from '../../test/runSaga';
import { sessionActions } from '../session/sessionSlice';
import { uiActions } from '../shell/uiSlice';
import reducer, { formsActions } from './formsSlice';
import { submitForm } from './sagas';

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false });
  localStorage.setItem('webKey', 'k');
});
afterEach(() => vi.unstubAllGlobals());

const ANSWER = { auth_token: 'A', user_id: 9, username: 'p', expires: Date.now() + 600_000, never_expires: false, session: 'S' };

describe('form saga', () => {
  it('registers by phone: checkcode first, its uid as phoneUid, then logged in with the success popup', async () => {
    const api = mockApi({ checkcode: () => ok({ uid: 'CHECKED', username: '' }), 'default/registermobile': () => ok(ANSWER) });
    const run = startSaga(submitForm, formsActions.submitted({
      id: 'register', path: 'default/registermobile', after: 'register', params: { phone: '13800000000', password: 'abc123' },
      verify: { uidField: 'phoneUid', params: { uid: 'SENT', type: 2, valtype: 1, checkCode: '1234', mobile: '13800000000' } },
    }));
    await run.task.toPromise();
    expect(api.calls.map((c) => c.path)).toEqual(['checkcode', 'default/registermobile']);
    expect(api.calls[0]!.params).toEqual({ uid: 'SENT', type: 2, valtype: 1, checkCode: '1234', mobile: '13800000000' });
    expect(api.calls[1]!.params).toEqual({ phone: '13800000000', password: 'abc123', phoneUid: 'CHECKED' });
    expect(run.types()).toEqual([formsActions.succeeded.type, sessionActions.loggedIn.type, uiActions.popupOpened.type]);
    expect(run.dispatched.at(-1)).toEqual(uiActions.popupOpened({ name: 'registerSuccess' }));
    expect(localStorage.getItem('session')).toBe('S');
  });

  it('rebinds a phone: the code of the old phone, then of the new one, as old_uid and uid with the password', async () => {
    let n = 0;
    const api = mockApi({ checkcode: () => ok({ uid: `CHECKED${++n}`, username: 'p' }), 'user/mobileupdate': () => ok(null) });
    const run = startSaga(submitForm, formsActions.submitted({
      id: 'bind-phone', path: 'user/mobileupdate', after: 'profile', params: { mobile: '13911112222', loginpass: 'abc123' },
      verify: [
        { uidField: 'old_uid', params: { uid: 'OLD', type: 8, valtype: 1, checkCode: '1111', username: 'p' } },
        { uidField: 'uid', params: { uid: 'NEW', type: 2, valtype: 1, checkCode: '2222', mobile: '13911112222' } },
      ],
    }));
    await run.task.toPromise();
    expect(api.calls.map((c) => c.path)).toEqual(['checkcode', 'checkcode', 'user/mobileupdate']);
    expect(api.calls[0]!.params).toMatchObject({ uid: 'OLD', type: 8 });
    expect(api.calls[1]!.params).toMatchObject({ uid: 'NEW', type: 2 });
    expect(api.calls[2]!.params).toEqual({ mobile: '13911112222', loginpass: 'abc123', old_uid: 'CHECKED1', uid: 'CHECKED2' });
  });

  it('keeps the server field of a refusal', async () => {
    mockApi({ 'default/register': () => refuse(1118, 'exists', { field: 'username' }) });
    const run = startSaga(submitForm, formsActions.submitted({ id: 'register', path: 'default/register', params: {} }));
    await run.task.toPromise();
    expect(run.dispatched[0]).toMatchObject({
      type: formsActions.failed.type,
      payload: { id: 'register', error: { status: 1118, field: 'username', key: 'validation.username_exists' } },
    });
  });

  it("shows a duplicate submission in the member's language, with the wait", async () => {
    mockApi({ 'user/nicknameupdate': () => refuse(-66666, 'Repeated submission, please wait 3 seconds.', { wait: 3 }) });
    const run = startSaga(submitForm, formsActions.submitted({ id: 'nickname', path: 'user/nicknameupdate', params: { nickname: 'abcd' } }));
    await run.task.toPromise();
    expect(run.dispatched[0]).toMatchObject({
      payload: { error: { msg: 'Repeated submission, please wait 3 seconds.', key: 'error.-66666', args: [3] } },
    });
  });

  it('reloads the profile after a profile change', async () => {
    mockApi({ 'user/nicknameupdate': () => ok(null) });
    const run = startSaga(submitForm, formsActions.submitted({ id: 'nickname', path: 'user/nicknameupdate', params: {}, after: 'profile' }));
    await run.task.toPromise();
    expect(run.dispatched).toEqual([formsActions.succeeded({ id: 'nickname', data: null }), sessionActions.profileRequested()]);
  });

  it('tracks pending, success count and errors per form', () => {
    let s = reducer(undefined, formsActions.submitted({ id: 'a', path: 'x', params: {} }));
    expect(s.a!.status).toBe('pending');
    s = reducer(s, formsActions.succeeded({ id: 'a', data: { uid: 'u' } }));
    s = reducer(s, formsActions.submitted({ id: 'a', path: 'x', params: {} }));
    s = reducer(s, formsActions.succeeded({ id: 'a', data: { uid: 'v' } }));
    expect(s.a).toMatchObject({ status: 'done', successes: 2, data: { uid: 'v' } });
    s = reducer(s, formsActions.reset('a'));
    expect(s.a).toBeUndefined();
  });
});

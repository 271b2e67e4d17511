import { afterEach, describe, expect, it, vi } from 'vitest';
import { envelope, json, mockFetch } from '../../test/fetchMock';
import { startSaga } from '../../test/runSaga';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import reducer, { configActions } from './configSlice';
import { CONFIG_URL, loadConfig, pickLanguage } from './sagas';
import type { SiteConfig } from './types';

const conf = readSkin<SiteConfig>('conf.json');
const TOKEN_URL = '/api/getapitoken';

afterEach(() => vi.unstubAllGlobals());

describe('config slice', () => {
  it('goes loading -> loaded and clears a previous error on retry', () => {
    let state = reducer(undefined, configActions.failed({ status: -1, msg: 'x', key: 'error.network', args: [] }));
    expect(state.status).toBe('failed');
    state = reducer(state, configActions.loadRequested());
    expect(state).toMatchObject({ status: 'loading', error: null });
    state = reducer(state, configActions.loaded(conf));
    expect(state.status).toBe('loaded');
    expect(state.conf?.site_id).toBe(1054);
    expect(state.conf?.transport_pairs).toHaveLength(10);
  });
});

describe('loadConfig saga', () => {
  it('stores the configuration and the API token, then asks for the default language', async () => {
    const spy = mockFetch({ [CONFIG_URL]: () => json(conf), [TOKEN_URL]: () => envelope({ apitoken: 'T1' }) });
    const run = startSaga(loadConfig);
    await run.task.toPromise();
    expect(run.dispatched).toEqual([configActions.loaded(conf), i18nActions.loadRequested('zhh')]);
    expect(localStorage.getItem('webKey')).toBe('T1');
    expect(spy.mock.calls.map(([url]) => url)).toEqual([CONFIG_URL, TOKEN_URL]);
  });

  it('keeps a stored webKey without asking again', async () => {
    localStorage.setItem('webKey', 'kept');
    const spy = mockFetch({ [CONFIG_URL]: () => json(conf) });
    const run = startSaga(loadConfig);
    await run.task.toPromise();
    expect(run.types()).toEqual([configActions.loaded.type, i18nActions.loadRequested.type]);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('is not ready without an API token', async () => {
    mockFetch({ [CONFIG_URL]: () => json(conf), [TOKEN_URL]: () => new Response('down', { status: 503 }) });
    const run = startSaga(loadConfig);
    await run.task.toPromise();
    expect(run.types()).toEqual([configActions.failed.type]);
  });

  it("uses localStorage 'lang' when the skin offers it", async () => {
    localStorage.setItem('lang', 'tha');
    mockFetch({ [CONFIG_URL]: () => json(conf), [TOKEN_URL]: () => envelope({ apitoken: 'T1' }) });
    const run = startSaga(loadConfig);
    await run.task.toPromise();
    expect(run.dispatched.at(-1)).toEqual(i18nActions.loadRequested('tha'));
  });

  it('reports an HTTP failure and asks for no language', async () => {
    mockFetch({ [CONFIG_URL]: () => new Response('boom', { status: 500 }) });
    const run = startSaga(loadConfig);
    await run.task.toPromise();
    expect(run.types()).toEqual([configActions.failed.type]);
    expect(run.dispatched[0]).toMatchObject({ payload: { httpStatus: 500, msg: 'Request failed (HTTP 500)' } });
  });

  it('refuses a configuration without languages', async () => {
    mockFetch({ [CONFIG_URL]: () => json({ brand: 'x' }) });
    const run = startSaga(loadConfig);
    await run.task.toPromise();
    expect(run.dispatched[0]).toMatchObject({ type: configActions.failed.type, payload: { msg: 'Invalid server response' } });
  });
});

describe('pickLanguage', () => {
  it('falls back to the default for a missing or unsupported choice', () => {
    expect(pickLanguage(conf, null)).toBe('zhh');
    expect(pickLanguage(conf, 'rus')).toBe('zhh');
    expect(pickLanguage(conf, 'eng')).toBe('eng');
  });
});

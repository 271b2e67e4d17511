import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAIRS, mockApi, nodeDecrypt, nodeEncrypt, ok, refuse } from '../test/apiMock';
import { aesDecrypt, aesEncrypt, hmacSha256Hex, reverseCodePoints } from './crypto';
import { ApiError, REQUEST_TIMEOUT_MS } from './http';
import {
  APP_ID, CLIENT_VERSION, LOG_TYPE_ERROR, LOG_TYPE_SLOW, apiGet, apiPost, configureTransport,
  ensureAppToken, forgetDeviceId, logUrl, makeUniqueId, setTransportLanguage, setUserToken, signRequest,
} from './transport';

/** Fakes only the clocks: WebCrypto settles through the real event loop. */
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
/** Lets the async signing and encryption run until fetch has been called n times. */
async function untilFetched(spy: { mock: { calls: unknown[] } }, n = 1) {
  while (spy.mock.calls.length < n) await new Promise((r) => setImmediate(r));
}

const nodeSign = (key: string, message: string) => createHmac('sha256', key).update(message, 'utf8').digest('hex');

beforeEach(() => {
  configureTransport({ pairs: PAIRS, reportLogs: false, onExpired: () => {}, slowMs: 8000, timeoutMs: REQUEST_TIMEOUT_MS });
  setUserToken(null);
  setTransportLanguage('zhh');
  forgetDeviceId();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('crypto primitives', () => {
  it('reverses by code points, keeping astral characters whole', () => {
    expect(reverseCodePoints('{"a":"😀中"}')).toBe('}"中😀":"a"{');
  });

  it('signs like node:crypto HMAC-SHA256 (the server vector too)', async () => {
    const message = reverseCodePoints('{"a":1}') + '1700000000000abcdef' + 'H5' + '2.0.2';
    expect(await hmacSha256Hex('tok', message)).toBe(nodeSign('tok', message));
    expect(await signRequest('tok', '{"a":1}', '1700000000000abcdef')).toBe(nodeSign('tok', '}1:"a"{1700000000000abcdefH52.0.2'));
  });

  it("keys with '' before an API token exists, and signs '-' for GET", async () => {
    expect(await signRequest('', null, '1700000000000abcdef')).toBe(nodeSign('', '-1700000000000abcdefH52.0.2'));
  });

  it('AES-128-CBC round-trips against node:crypto in both directions', async () => {
    const text = JSON.stringify({ username: '张三', n: 'x'.repeat(40) });
    for (const pair of PAIRS) {
      const mine = await aesEncrypt(text, pair);
      expect(mine).toBe(nodeEncrypt(text, pair));
      expect(nodeDecrypt(mine, pair)).toBe(text);
      expect(await aesDecrypt(nodeEncrypt(text, pair), pair)).toBe(text);
    }
  });

  it('makes 13-digit timestamp + 6 alphanumeric unique ids', () => {
    expect(makeUniqueId(1_700_000_000_000)).toMatch(/^1700000000000[A-Za-z0-9]{6}$/);
    expect(makeUniqueId()).not.toBe(makeUniqueId());
  });
});

describe('request layer', () => {
  it('fetches the API token with an empty AppToken and stores it as webKey', async () => {
    const api = mockApi({ getapitoken: () => ok({ apitoken: 'T0K' }) });
    await expect(ensureAppToken()).resolves.toBe('T0K');
    expect(localStorage.getItem('webKey')).toBe('T0K');
    const { headers } = api.calls[0]!;
    expect(headers.AppToken).toBe('');
    expect(headers.Sign).toBe(nodeSign('', '-' + headers.UniqueId + 'H5' + '2.0.2'));
    await ensureAppToken();
    expect(api.calls).toHaveLength(1);
  });

  it('sends every header, a valid Sign and an AES envelope; decrypts the answer', async () => {
    localStorage.setItem('webKey', 'key-1');
    setUserToken('user-tok');
    const api = mockApi({ 'user/getbalance': () => ok({ balance: '1.00' }) });
    await expect(apiPost('user/getbalance', { a: 'ü' })).resolves.toEqual({ balance: '1.00' });
    const { headers, plain, params } = api.calls[0]!;
    expect(params).toEqual({ a: 'ü' });
    expect(headers).toMatchObject({ AppId: APP_ID, Version: CLIENT_VERSION, AppToken: 'key-1', UserToken: 'user-tok', IsAB: '0' });
    expect(headers.UniqueId).toMatch(/^\d{13}[A-Za-z0-9]{6}$/);
    expect(headers.DeviceId).toMatch(/^[0-9a-f]{32}$/);
    expect(headers.Sign).toBe(nodeSign('key-1', reverseCodePoints(plain!) + headers.UniqueId + 'H52.0.2'));
    const body = JSON.parse(String(api.spy.mock.calls[0]![1]!.body)) as { data: string; fuaohbcb: number };
    expect(body.fuaohbcb).toBeGreaterThanOrEqual(0);
    expect(body.fuaohbcb).toBeLessThan(10);
  });

  it('keeps one DeviceId across calls and in localStorage, and no UserToken when logged out', async () => {
    const api = mockApi({ getconfig: () => ok({}) });
    await apiGet('getconfig');
    await apiGet('getconfig');
    expect(api.calls[0]!.headers.DeviceId).toBe(api.calls[1]!.headers.DeviceId);
    expect(localStorage.getItem('deviceId')).toBe(api.calls[0]!.headers.DeviceId);
    expect(api.calls[0]!.headers.UserToken).toBeUndefined();
  });

  it('uses all ten pairs over many calls', async () => {
    mockApi({ x: () => ok(1) });
    const spy = vi.mocked(fetch);
    // Random pairs: in 400 calls a pair goes unused once in 10^17 runs
    // (in 80, one run in 500 failed).
    for (let i = 0; i < 400; i++) await apiPost('x');
    const used = new Set(spy.mock.calls.map(([, init]) => (JSON.parse(String(init!.body)) as { fuaohbcb: number }).fuaohbcb));
    expect(used.size).toBe(10);
  });

  it('puts GET params in the query string', async () => {
    const api = mockApi({ validate: () => ok(1) });
    await apiGet('validate', { uid: 'abc' });
    expect(api.calls[0]!.params).toEqual({ uid: 'abc' });
  });

  it('gets a fresh token and retries once on -70008', async () => {
    localStorage.setItem('webKey', 'stale');
    let n = 0;
    const api = mockApi({
      getapitoken: () => ok({ apitoken: 'fresh' }),
      x: ({ headers }) => (headers.AppToken === 'fresh' ? ok(++n) : refuse(-70008, 'Invalid app token')),
    });
    await expect(apiPost('x')).resolves.toBe(1);
    expect(api.calls.map((c) => c.path)).toEqual(['x', 'getapitoken', 'x']);
  });

  it('shows the server msg for duplicate submissions and Unknown error for unknown codes', async () => {
    mockApi({
      dup: () => refuse(-66666, 'Repeated submission, please wait 3 seconds.', { wait: 3 }),
      odd: () => refuse(-4242, 'whatever'),
    });
    const dup = (await apiPost('dup').catch((e: unknown) => e)) as ApiError;
    expect(dup.msg).toBe('Repeated submission, please wait 3 seconds.');
    expect(dup.data).toEqual({ wait: 3 });
    const odd = (await apiPost('odd').catch((e: unknown) => e)) as ApiError;
    expect(odd.msg).toBe('Unknown error (-4242)');
    expect(odd.i18n).toEqual({ key: 'error.unknown', args: [-4242] });
  });

  it('reads a plain transport refusal (HTTP 400)', async () => {
    mockApi({ x: () => new Response(JSON.stringify({ status: -70004, msg: 'Invalid signature', data: null }), { status: 400 }) });
    const err = (await apiPost('x').catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(-70004);
    expect(err.httpStatus).toBe(400);
  });
});

describe('-601', () => {
  it('calls the expiry hook once and rejects', async () => {
    const onExpired = vi.fn();
    configureTransport({ onExpired });
    mockApi({ 'user/userinfo': () => refuse(-601, 'Sorry, your login status has expired, please log in again') });
    const err = (await apiPost('user/userinfo').catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(-601);
    expect(err.msg).toBe('Sorry, your login status has expired, please log in again');
    expect(onExpired).toHaveBeenCalledTimes(1);
  });

  it('lets the forced logout call skip the hook', async () => {
    const onExpired = vi.fn();
    configureTransport({ onExpired });
    mockApi({ logout: () => refuse(-601) });
    await apiPost('logout', {}, { skipExpiryHook: true }).catch(() => {});
    expect(onExpired).not.toHaveBeenCalled();
  });
});

describe('timeout and reports', () => {
  const logCalls = (spy: ReturnType<typeof vi.fn>) =>
    spy.mock.calls.filter(([url]) => String(url).startsWith('/api/logwriter/'));

  it('aborts after 60000 ms and reports a network error to errorapi', async () => {
    fakeClock();
    configureTransport({ reportLogs: true });
    localStorage.setItem('webKey', 'k');
    const spy = vi.fn((url: string, init: RequestInit) => {
      if (url.startsWith('/api/logwriter/')) return Promise.resolve(new Response('{"status":0}'));
      return new Promise<Response>((_r, reject) =>
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    });
    vi.stubGlobal('fetch', spy);
    const pending = apiPost('slow').catch((e: unknown) => e);
    await untilFetched(spy);
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(logCalls(spy)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    const err = (await pending) as ApiError;
    expect(err.status).toBe(-2);
    const [url, init] = logCalls(spy)[0]!;
    expect(url).toBe('/api/logwriter/errorapi');
    const [event] = JSON.parse(String(init!.body)) as Array<Record<string, unknown>>;
    expect(event).toMatchObject({ api: 'slow', type: LOG_TYPE_ERROR, ErrorState: 'timeout', responseTime: REQUEST_TIMEOUT_MS });
    expect(event!.deviceData).toMatchObject({ userAgent: navigator.userAgent, innerWidth: window.innerWidth });
    expect(Object.keys(event!)).toEqual(expect.arrayContaining(['baseUrl', 'ip', 'time', 'ErrorHeader', 'Error']));
  });

  it("reports an answer slower than 8000 ms to devicelog, 'en' prefixed outside zhh", async () => {
    fakeClock();
    configureTransport({ reportLogs: true });
    setTransportLanguage('eng');
    const api = mockApi({
      late: () => new Promise((resolve) => setTimeout(() => resolve(ok(1)), 8001)),
      quick: () => new Promise((resolve) => setTimeout(() => resolve(ok(1)), 8000)),
    });
    const late = apiPost('late');
    await untilFetched(api.spy);
    await vi.advanceTimersByTimeAsync(8001);
    await late;
    const quick = apiPost('quick');
    await untilFetched(api.spy, 3);
    await vi.advanceTimersByTimeAsync(8000);
    await quick;
    const logs = logCalls(api.spy);
    expect(logs).toHaveLength(1);
    expect(logs[0]![0]).toBe('/api/logwriter/endevicelog');
    const [event] = JSON.parse(String(logs[0]![1]!.body)) as Array<Record<string, unknown>>;
    expect(event).toMatchObject({ api: 'late', type: LOG_TYPE_SLOW });
    expect(event!.responseTime).toBeGreaterThan(8000);
  });

  it('sends no report when reports are off (development)', async () => {
    const spy = vi.fn().mockRejectedValue(new TypeError('offline'));
    vi.stubGlobal('fetch', spy);
    await apiPost('x').catch(() => {});
    expect(logCalls(spy)).toHaveLength(0);
  });

  it('names the log endpoints per language', () => {
    expect(logUrl('slow', 'zhh')).toBe('/api/logwriter/devicelog');
    expect(logUrl('error', 'tha')).toBe('/api/logwriter/enerrorapi');
  });
});

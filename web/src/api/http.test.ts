import { afterEach, describe, expect, it, vi } from 'vitest';
import { envelope, json, mockFetch } from '../test/fetchMock';
import { fillPlaceholders, messageForCode } from './errors';
import { ApiError, REQUEST_TIMEOUT_MS, getJson, toErrorInfo } from './http';

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('envelope', () => {
  it('returns data when status is 0', async () => {
    mockFetch({ '/api/x': () => envelope({ a: 1 }) });
    await expect(getJson('/api/x')).resolves.toEqual({ a: 1 });
  });

  it('throws the catalogue message for a known code', async () => {
    mockFetch({ '/api/x': () => envelope(null, 2400, 'server text') });
    const err = await failure(getJson('/api/x'));
    expect(err.status).toBe(2400);
    expect(err.msg).toBe('Insufficient balance');
    expect(err.serverMsg).toBe('server text');
  });

  it("maps an unknown code to 'Unknown error ({1})' with the code filled in", async () => {
    mockFetch({ '/api/x': () => envelope(null, 98765) });
    const err = await failure(getJson('/api/x'));
    expect(err.status).toBe(98765);
    expect(err.msg).toBe('Unknown error (98765)');
    expect(toErrorInfo(err)).toMatchObject({ key: 'error.unknown', args: [98765], status: 98765 });
  });

  it('prefers an envelope code over the HTTP status', async () => {
    mockFetch({ '/api/x': () => json({ status: 12, msg: '', data: null }, 401) });
    const err = await failure(getJson('/api/x'));
    expect(err.status).toBe(12);
    expect(err.httpStatus).toBe(401);
    expect(err.msg).toBe('Not logged in');
  });

  it('reports a non-JSON HTTP error with its status', async () => {
    mockFetch({});
    const err = await failure(getJson('/api/missing'));
    expect(err.httpStatus).toBe(404);
    expect(err.msg).toBe('Request failed (HTTP 404)');
  });

  it('refuses a 200 answer without an envelope', async () => {
    mockFetch({ '/api/x': () => json({ hello: 'world' }) });
    const err = await failure(getJson('/api/x'));
    expect(err.msg).toBe('Invalid server response');
  });

  it('returns raw JSON when the envelope is switched off', async () => {
    mockFetch({ '/skins/conf.json': () => json({ brand: 'B' }) });
    await expect(getJson('/skins/conf.json', { envelope: false })).resolves.toEqual({ brand: 'B' });
  });
});

describe('transport failures', () => {
  it("turns a fetch rejection into 'Network request failed'", async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    const err = await failure(getJson('/api/x'));
    expect(err.msg).toBe('Network request failed');
  });

  it('aborts after the 60000 ms request timeout', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn((_url: string, init: RequestInit) => {
        signal = init.signal ?? undefined;
        return new Promise((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        });
      }),
    );
    const pending = failure(getJson('/api/slow'));
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = await pending;
    expect(signal?.aborted).toBe(true);
    expect(err.status).toBe(-2);
    expect(err.msg).toBe('Network request failed');
  });
});

describe('catalogue helpers', () => {
  it('fills 1-based placeholders and keeps unknown ones', () => {
    expect(fillPlaceholders('Unknown error ({1})', [42])).toBe('Unknown error (42)');
    expect(fillPlaceholders('{2} then {1} then {3}', ['a', 'b'])).toBe('b then a then {3}');
  });

  it('maps both game-started codes to one message', () => {
    expect(messageForCode(1100).key).toBe(messageForCode(1102).key);
  });
});

describe('refusals that name a wait', () => {
  it("read from the language file's error.<code> with the wait, in every language", async () => {
    for (const code of [-66666, -66667, -66668, -10108, -10109]) {
      const err = new ApiError(code, { serverMsg: 'English text, wait 3 seconds', data: { wait: 3 } });
      expect(err.i18n).toEqual({ key: `error.${code}`, args: [3] });
      expect(err.msg).toBe('English text, wait 3 seconds');
    }
    const fs = await import('node:fs');
    for (const lang of ['eng', 'zhh', 'tha']) {
      const file = JSON.parse(fs.readFileSync(`../config/skins/languages/${lang}.json`, 'utf8')) as Record<string, string>;
      for (const code of [-66666, -66667, -66668, -10108, -10109]) expect(file[`error.${code}`]).toContain('{1}');
    }
  });

  it('without a wait, show the server text', () => {
    const err = new ApiError(-66666, { serverMsg: 'Repeated submission, please wait 2 seconds.' });
    expect(err.i18n.key).toBe('');
    expect(err.msg).toBe('Repeated submission, please wait 2 seconds.');
  });
});

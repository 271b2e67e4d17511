import { vi } from 'vitest';

export type Handler = (init?: RequestInit) => Response | Promise<Response>;

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export const envelope = (data: unknown, status = 0, msg = '') => json({ status, msg, data });

/** Replaces global fetch with a router keyed by path; unknown paths answer 404. Returns the spy. */
export function mockFetch(routes: Record<string, Handler>) {
  const spy = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const handler = routes[url];
    return handler ? handler(init) : new Response('not found', { status: 404 });
  });
  vi.stubGlobal('fetch', spy);
  return spy;
}

/** A promise that a test settles when it chooses. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const DEMO_BALANCE = {
  balance: '10000.00',
  bonus_balance: '0.00',
  bonus_win_balance: '0.00',
  frozen_balance: '0.00',
  currency: 'CNY',
};

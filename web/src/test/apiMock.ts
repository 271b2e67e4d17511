/**
 * A fake main API for unit tests: decrypts POST bodies with node:crypto (an
 * independent AES implementation), routes by path, and seals answers the way the
 * server does. Handlers get the decrypted params and the request headers.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { vi } from 'vitest';
import { readSkin } from './skins';

export type Pair = [string, string];
export const PAIRS = readSkin<{ transport_pairs: Pair[] }>('conf.json').transport_pairs;

export const nodeEncrypt = (plain: string, [key, iv]: Pair) => {
  const c = createCipheriv('aes-128-cbc', Buffer.from(key), Buffer.from(iv));
  return Buffer.concat([c.update(plain, 'utf8'), c.final()]).toString('base64');
};
export const nodeDecrypt = (b64: string, [key, iv]: Pair) => {
  const d = createDecipheriv('aes-128-cbc', Buffer.from(key), Buffer.from(iv));
  return Buffer.concat([d.update(Buffer.from(b64, 'base64')), d.final()]).toString('utf8');
};

export interface ApiCall {
  method: string;
  path: string;
  params: Record<string, unknown>;
  headers: Record<string, string>;
  /** The plaintext JSON (POST) that was signed. */
  plain: string | null;
}
export type Answer = { status?: number; msg?: string; data?: unknown } | Response;
export type ApiHandler = (call: ApiCall) => Answer | Promise<Answer>;

const sealed = (body: object, index: number) =>
  new Response(JSON.stringify({ data: nodeEncrypt(JSON.stringify(body), PAIRS[index]!), fuaohbcb: index }), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });
const plainJson = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** Routes /api/<path> to handlers (keyed by path without /api/), others to `other`. */
export function mockApi(handlers: Record<string, ApiHandler>, other: Record<string, () => Response> = {}) {
  const calls: ApiCall[] = [];
  const spy = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, 'http://t');
    if (other[url.pathname + url.search]) return other[url.pathname + url.search]!();
    if (other[url.pathname]) return other[url.pathname]!();
    if (!url.pathname.startsWith('/api/') || url.pathname.startsWith('/api/logwriter/')) {
      return new Response('not found', { status: 404 });
    }
    const path = url.pathname.slice(5);
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>));
    const method = init.method ?? 'GET';
    let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    let plain: string | null = null;
    let index = 0;
    if (method === 'POST') {
      const env = JSON.parse(String(init.body)) as { data: string; fuaohbcb: number };
      index = env.fuaohbcb;
      plain = nodeDecrypt(env.data, PAIRS[index]!);
      params = JSON.parse(plain) as Record<string, unknown>;
    }
    const call: ApiCall = { method, path, params, headers, plain };
    calls.push(call);
    const handler = handlers[path];
    if (!handler) return plainJson({ status: -404, msg: 'Unknown API path', data: null }, 404);
    const answer = await handler(call);
    if (answer instanceof Response) return answer;
    const body = { status: answer.status ?? 0, msg: answer.msg ?? '', data: answer.data ?? null };
    return method === 'POST' ? sealed(body, index) : plainJson(body);
  });
  vi.stubGlobal('fetch', spy);
  return { spy, calls, last: (path: string) => calls.filter((c) => c.path === path).at(-1) };
}

export const ok = (data: unknown = null) => ({ status: 0, data });
export const refuse = (status: number, msg = '', data: unknown = null) => ({ status, msg, data });

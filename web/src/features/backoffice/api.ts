/**
 * The back office API (docs/cashout-and-backoffice.md "Back office"): plain JSON
 * under /api/backoffice, `{status, msg, data}` answers, `Authorization: Bearer`.
 * Failures become a {@link BoError}: 401 sends staff back to the login form, 403 is
 * 'Not allowed for your role'.
 */
import { ApiError, CLIENT_CODES, REQUEST_TIMEOUT_MS, messageForCode, requestJson } from '../../api';
import { fetchWithTimeout } from '../../api/http';

export const BO_BASE = '/api/backoffice';

export interface BoRequest {
  method: 'GET' | 'POST';
  /** Below /api/backoffice, with its query string. */
  path: string;
  body?: unknown;
  token?: string | null;
}

export type BoFetch = <T>(request: BoRequest) => Promise<T>;

export const boFetch: BoFetch = <T,>({ method, path, body, token }: BoRequest) => {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  return requestJson<T>(`${BO_BASE}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
};

/**
 * A file below /api/backoffice (a member's statement, an identity document) with the staff
 * token: the bytes as a Blob. A JSON answer is the envelope of a refusal, thrown as its ApiError.
 */
export async function boFetchBlob({ path, token }: { path: string; token?: string | null }): Promise<Blob> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetchWithTimeout(`${BO_BASE}${path}`, { method: 'GET', headers }, REQUEST_TIMEOUT_MS);
  if (response.ok && !/json/i.test(response.headers.get('Content-Type') ?? '')) return response.blob();
  const body = (await response.json().catch(() => null)) as { status?: unknown; msg?: unknown } | null;
  const status = typeof body?.status === 'number' && body.status !== 0 ? body.status : response.ok ? CLIENT_CODES.BAD_RESPONSE : CLIENT_CODES.HTTP;
  throw new ApiError(status, { httpStatus: response.status, serverMsg: typeof body?.msg === 'string' ? body.msg : undefined });
}

/** auth: not logged in or expired (HTTP 401); forbidden: HTTP 403; refused: a business code; network: no answer. */
export type BoErrorKind = 'auth' | 'forbidden' | 'notFound' | 'refused' | 'network';

export interface BoError {
  kind: BoErrorKind;
  code: number;
  httpStatus?: number;
  /** A language-file key, or '' with `text` (the server's message for codes outside the catalogue). */
  key: string;
  args: Array<string | number>;
  text?: string;
}

/** Login refusals come with HTTP 401 too, but they are answers, not an ended session. */
const LOGIN_CODES = [1002, 1022, 1004];

export function toBoError(err: unknown): BoError {
  if (!(err instanceof ApiError)) return { kind: 'network', code: CLIENT_CODES.BAD_RESPONSE, key: 'error.bad_response', args: [] };
  const base = { code: err.status, ...(err.httpStatus !== undefined ? { httpStatus: err.httpStatus } : {}) };
  if (err.status === CLIENT_CODES.NETWORK || err.status === CLIENT_CODES.TIMEOUT) return { ...base, kind: 'network', key: 'error.network', args: [] };
  if (err.httpStatus === 401 && !LOGIN_CODES.includes(err.status)) return { ...base, kind: 'auth', key: 'bo.expired', args: [] };
  if (err.httpStatus === 403 || err.status === -403) return { ...base, kind: 'forbidden', key: 'bo.forbidden', args: [] };
  if (err.httpStatus === 404 || err.status === -404) return { ...base, kind: 'notFound', key: 'bo.not_found', args: [] };
  const known = messageForCode(err.status, err.httpStatus);
  if (known.key === 'error.unknown' && err.serverMsg) return { ...base, kind: 'refused', key: '', args: [], text: err.serverMsg };
  return { ...base, kind: 'refused', key: known.key, args: known.args };
}

/**
 * The main API request layer (docs/protocol.md, "Main API request layer"):
 * signed headers on every call, AES envelopes on POST, the -601 forced logout
 * hook, the slow-response and network-error reports, and the API token (webKey).
 *
 * Plain JSON that is not the main API (skins, /api/dev/*) stays in http.ts.
 */
import { CLIENT_CODES } from './errors';
import { aesDecrypt, aesEncrypt, hmacSha256Hex, randomAlnum, randomIndex, reverseCodePoints, sha256Hex, type KeyPair } from './crypto';
import { ApiError, REQUEST_TIMEOUT_MS, fetchWithTimeout } from './http';

export const APP_ID = 'H5';
export const CLIENT_VERSION = '2.0.2';
/** Spec 000 section 9: responses slower than this are reported. */
export const SLOW_RESPONSE_MS = 8000;
export const WEBKEY_STORAGE_KEY = 'webKey';
export const DEVICE_ID_STORAGE_KEY = 'deviceId';
export const SESSION_EXPIRED = -601;
export const INVALID_APP_TOKEN = -70008;
/** Log type labels (spec 000 section 8: the Chinese phrases for these). */
export const LOG_TYPE_SLOW = '接口慢数据';
export const LOG_TYPE_ERROR = '网络错误数据';

export interface TransportSettings {
  /** The ten [key, iv] pairs (conf.json transport_pairs = config/default.toml [transport] pairs). */
  pairs: KeyPair[];
  /** Called when a decrypted answer says -601 (the session saga logs the member out). */
  onExpired: () => void;
  /** Reports go out in production builds only. */
  reportLogs: boolean;
  slowMs: number;
  timeoutMs: number;
  isAB: '0' | '1';
}

const settings: TransportSettings = {
  pairs: [],
  onExpired: () => {},
  reportLogs: !import.meta.env.DEV,
  slowMs: SLOW_RESPONSE_MS,
  timeoutMs: REQUEST_TIMEOUT_MS,
  isAB: '0',
};
let userToken: string | null = null;
let language: string | null = null;

export function configureTransport(partial: Partial<TransportSettings>) {
  Object.assign(settings, partial);
}
/** The member's auth_token, sent as UserToken; null when logged out. */
export const setUserToken = (token: string | null) => void (userToken = token);
export const setTransportLanguage = (lang: string | null) => void (language = lang);

function storageGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function storageSet(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* storage disabled: the value lives for this page only */
  }
}

/** 13-digit millisecond timestamp + 6 letters/digits. */
export const makeUniqueId = (now = Date.now()) => `${now}${randomAlnum(6)}`;

/** The signature: HMAC-SHA256(appToken, reverse(body or '-') + UniqueId + AppId + Version). */
export const signRequest = (appToken: string, body: string | null, uniqueId: string) =>
  hmacSha256Hex(appToken, reverseCodePoints(body ?? '-') + uniqueId + APP_ID + CLIENT_VERSION);

let deviceIdMemo: string | null = null;

/** A stable browser fingerprint: a hash of what the browser tells, salted once, kept in localStorage. */
export async function getDeviceId(): Promise<string> {
  const stored = deviceIdMemo ?? storageGet(DEVICE_ID_STORAGE_KEY);
  if (stored) return (deviceIdMemo = stored);
  const traits = [
    navigator.userAgent, navigator.language, navigator.hardwareConcurrency,
    screen.width, screen.height, screen.colorDepth, new Date().getTimezoneOffset(), randomAlnum(8),
  ].join('|');
  const id = (await sha256Hex(traits)).slice(0, 32);
  storageSet(DEVICE_ID_STORAGE_KEY, id);
  return (deviceIdMemo = id);
}
/** Tests start each case with a fresh device. */
export const forgetDeviceId = () => void (deviceIdMemo = null);

export const readAppToken = () => storageGet(WEBKEY_STORAGE_KEY);

/** GET getapitoken and store data.apitoken as webKey. */
export async function fetchAppToken(): Promise<string> {
  storageSet(WEBKEY_STORAGE_KEY, null);
  const data = await apiGet<{ apitoken: string }>('getapitoken');
  if (!data || typeof data.apitoken !== 'string') throw new ApiError(CLIENT_CODES.BAD_RESPONSE);
  storageSet(WEBKEY_STORAGE_KEY, data.apitoken);
  return data.apitoken;
}

/** The boot step: the stored webKey, or a fresh one. */
export const ensureAppToken = async () => readAppToken() ?? fetchAppToken();

export interface CallOptions {
  /** The forced-logout call itself must not trigger another forced logout. */
  skipExpiryHook?: boolean;
  /** The answer is a file (a GET): its bytes as a Blob; a JSON answer is still an envelope (a refusal). */
  file?: boolean;
}

type Params = Record<string, unknown>;

export const apiGet = <T>(path: string, params: Params = {}, options: CallOptions = {}) =>
  callWithTokenRetry<T>('GET', path, params, options);

export const apiPost = <T>(path: string, params: Params = {}, options: CallOptions = {}) =>
  callWithTokenRetry<T>('POST', path, params, options);

/** A signed GET that answers a file (the member's statement, text/csv); a refusal throws its ApiError. */
export const apiDownload = (path: string, params: Params = {}) => callWithTokenRetry<Blob>('GET', path, params, { file: true });

/** A stale webKey (server secrets rotated) gets one fresh token and one retry. */
async function callWithTokenRetry<T>(method: 'GET' | 'POST', path: string, params: Params, options: CallOptions): Promise<T> {
  try {
    return await call<T>(method, path, params, options);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== INVALID_APP_TOKEN || path === 'getapitoken') throw err;
    await fetchAppToken();
    return call<T>(method, path, params, options);
  }
}

interface Envelope {
  status: number;
  msg?: string;
  data?: unknown;
}
const isEnvelope = (v: unknown): v is Envelope =>
  typeof v === 'object' && v !== null && typeof (v as Envelope).status === 'number';
const isSealed = (v: unknown): v is { data: string; fuaohbcb: number } =>
  typeof v === 'object' && v !== null &&
  typeof (v as { data?: unknown }).data === 'string' && typeof (v as { fuaohbcb?: unknown }).fuaohbcb === 'number';

function pairAt(index: number): KeyPair {
  const pair = settings.pairs[index];
  if (!pair) throw new ApiError(CLIENT_CODES.BAD_RESPONSE, { serverMsg: `no transport pair ${index}` });
  return pair;
}

async function call<T>(method: 'GET' | 'POST', path: string, params: Params, options: CallOptions): Promise<T> {
  const uniqueId = makeUniqueId();
  const appToken = readAppToken() ?? '';
  const plain = method === 'POST' ? JSON.stringify(params) : null;
  const headers: Record<string, string> = {
    Accept: options.file ? '*/*' : 'application/json',
    AppId: APP_ID,
    UniqueId: uniqueId,
    Version: CLIENT_VERSION,
    DeviceId: await getDeviceId(),
    AppToken: appToken,
    IsAB: settings.isAB,
    Sign: await signRequest(appToken, plain, uniqueId),
  };
  if (userToken) headers.UserToken = userToken;

  let url = `/api/${path}`;
  let body: string | undefined;
  if (plain !== null) {
    const index = randomIndex(settings.pairs.length || 1);
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify({ data: await aesEncrypt(plain, pairAt(index)), fuaohbcb: index });
  } else {
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
    if (query) url += `?${query}`;
  }

  const started = Date.now();
  let response: Response;
  try {
    response = await fetchWithTimeout(url, { method, headers, body }, settings.timeoutMs);
  } catch (err) {
    const e = err as ApiError;
    report('error', path, Date.now() - started, {
      ErrorState: e.status === CLIENT_CODES.TIMEOUT ? 'timeout' : 'network',
      ErrorHeader: '',
      Error: e.serverMsg ?? e.message,
    });
    throw err;
  }
  const elapsed = Date.now() - started;
  if (elapsed > settings.slowMs) report('slow', path, elapsed, {});

  if (options.file && response.ok && !/json/i.test(response.headers.get('Content-Type') ?? '')) return (await response.blob()) as T;
  let raw: unknown;
  try {
    raw = await response.json();
  } catch {
    raw = undefined;
  }
  if (response.status >= 500 && !isEnvelope(raw)) {
    report('error', path, elapsed, {
      ErrorState: response.status,
      ErrorHeader: JSON.stringify(Object.fromEntries(response.headers.entries())),
      Error: response.statusText,
    });
  }

  let answer: unknown = raw;
  if (isSealed(raw)) {
    try {
      answer = JSON.parse(await aesDecrypt(raw.data, pairAt(raw.fuaohbcb)));
    } catch {
      throw new ApiError(CLIENT_CODES.BAD_RESPONSE, { httpStatus: response.status });
    }
  }
  if (!isEnvelope(answer)) {
    if (!response.ok) throw new ApiError(CLIENT_CODES.HTTP, { httpStatus: response.status });
    throw new ApiError(CLIENT_CODES.BAD_RESPONSE, { httpStatus: response.status });
  }
  if (answer.status === 0) return answer.data as T;
  if (answer.status === SESSION_EXPIRED && !options.skipExpiryHook) settings.onExpired();
  throw new ApiError(answer.status, { httpStatus: response.status, serverMsg: answer.msg, data: answer.data });
}

interface NetworkInformationLike {
  effectiveType?: string;
  type?: string;
}

/** logwriter URL: devicelog / errorapi, with the 'en' variant for languages other than zhh. */
export function logUrl(kind: 'slow' | 'error', lang: string | null): string {
  const segment = kind === 'slow' ? 'devicelog' : 'errorapi';
  return `/api/logwriter/${lang && lang !== 'zhh' ? `en${segment}` : segment}`;
}

function report(kind: 'slow' | 'error', api: string, responseTime: number, extra: Record<string, unknown>) {
  if (!settings.reportLogs) return;
  const connection = (navigator as Navigator & { connection?: NetworkInformationLike }).connection;
  const event = {
    deviceData: {
      network: connection?.effectiveType ?? connection?.type ?? 'unknown',
      userAgent: navigator.userAgent,
      innerHeight: window.innerHeight,
      innerWidth: window.innerWidth,
      uuid: deviceIdMemo ?? storageGet(DEVICE_ID_STORAGE_KEY) ?? '',
      ip: '',
    },
    baseUrl: window.location.origin,
    api,
    ip: '',
    responseTime,
    time: new Date().toISOString(),
    type: kind === 'slow' ? LOG_TYPE_SLOW : LOG_TYPE_ERROR,
    ...extra,
  };
  // Plain JSON, fire and forget: a failing log must never fail the call it describes.
  void fetch(logUrl(kind, language), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify([event]),
    keepalive: true,
  }).catch(() => {});
}

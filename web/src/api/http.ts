/**
 * Plain JSON transport: a fetch wrapper with the spec's 60 s request timeout that
 * unwraps the `{status, msg, data}` envelope. Anything but status 0 becomes an
 * {@link ApiError}. The encrypted request layer for `/api/*` (spec 7.1) will sit
 * on top of this once the server issues API tokens.
 */
import { CLIENT_CODES, ENGLISH_FALLBACK, SERVER_TEXT_CODES, WAIT_CODES, fillPlaceholders, messageForCode, type Message } from './errors';

/** Request timeout, spec section 9. */
export const REQUEST_TIMEOUT_MS = 60_000;

export class ApiError extends Error {
  readonly status: number;
  /** English text; components translate `i18n.key` through the language file instead. */
  readonly msg: string;
  readonly i18n: Message;
  /** HTTP status when the failure came with one (e.g. 404). */
  readonly httpStatus?: number;
  /** The server's own `msg`, kept for diagnostics only. */
  readonly serverMsg?: string;
  /** The envelope's `data` on a refusal (`{field}`, `{wait}`, the -10010 channels ...). */
  readonly data?: unknown;

  constructor(status: number, opts: { httpStatus?: number; serverMsg?: string; data?: unknown } = {}) {
    const serverText = SERVER_TEXT_CODES.has(status) && opts.serverMsg;
    const wait = (opts.data as { wait?: unknown } | undefined)?.wait;
    const message: Message =
      WAIT_CODES.has(status) && typeof wait === 'number'
        ? { key: `error.${status}`, args: [wait] }
        : serverText
          ? { key: '', args: [] }
          : messageForCode(status, opts.httpStatus);
    const msg = serverText || fillPlaceholders(ENGLISH_FALLBACK[message.key] ?? message.key, message.args);
    super(msg);
    this.name = 'ApiError';
    this.status = status;
    this.msg = msg;
    this.i18n = message;
    this.httpStatus = opts.httpStatus;
    this.serverMsg = opts.serverMsg;
    this.data = opts.data;
  }
}

interface Envelope<T> {
  status: number;
  msg?: string;
  data: T;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Envelope<unknown>).status === 'number';
}

export interface RequestOptions extends Omit<RequestInit, 'signal'> {
  timeoutMs?: number;
  /** When false the body is returned as-is (static JSON files such as /skins/conf.json). */
  envelope?: boolean;
}

export async function fetchWithTimeout(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await fetch(url, { ...init, signal: controller.signal });
  } catch (err) {
    const code = controller.signal.aborted ? CLIENT_CODES.TIMEOUT : CLIENT_CODES.NETWORK;
    throw new ApiError(code, { serverMsg: err instanceof Error ? err.message : undefined });
  } finally {
    clearTimeout(timer);
  }
}

/** Fetches `url` and returns the envelope's `data` (or the raw JSON with `envelope: false`). */
export async function requestJson<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const { timeoutMs = REQUEST_TIMEOUT_MS, envelope = true, ...init } = options;
  const headers = new Headers(init.headers);
  headers.set('Accept', 'application/json');
  const response = await fetchWithTimeout(url, { ...init, headers }, timeoutMs);

  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }

  // A 404 or 500 may still carry an envelope with a catalogue code: prefer that.
  if (envelope && isEnvelope(body)) {
    if (body.status !== 0) throw new ApiError(body.status, { httpStatus: response.status, serverMsg: body.msg });
    if (response.ok) return body.data as T;
  }
  if (!response.ok) throw new ApiError(CLIENT_CODES.HTTP, { httpStatus: response.status });
  if (envelope || body === undefined) throw new ApiError(CLIENT_CODES.BAD_RESPONSE, { httpStatus: response.status });
  return body as T;
}

export const getJson = <T>(url: string, options: RequestOptions = {}) =>
  requestJson<T>(url, { ...options, method: 'GET' });

/** A serialisable error for the store: actions and state must stay plain data. */
export interface ErrorInfo extends Message {
  status: number;
  msg: string;
  httpStatus?: number;
  /** The form field a registration refusal names (`data.field`). */
  field?: string;
}

const fieldOf = (data: unknown): string | undefined => {
  const field = (data as { field?: unknown } | null | undefined)?.field;
  return typeof field === 'string' ? field : undefined;
};

export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof ApiError) {
    const info: ErrorInfo = { status: err.status, msg: err.msg, ...err.i18n };
    if (err.httpStatus !== undefined) info.httpStatus = err.httpStatus;
    const field = fieldOf(err.data);
    if (field) info.field = field;
    return info;
  }
  const text = err instanceof Error ? err.message : String(err);
  // Not a transport failure (a bug, or malformed data): show its text as is.
  return { status: CLIENT_CODES.BAD_RESPONSE, msg: text, key: '', args: [text] };
}

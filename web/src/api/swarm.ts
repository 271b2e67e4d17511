/**
 * The sportsbook data client (docs/protocol.md "Sportsbook data protocol (/swarm)"):
 * one request or answer per frame on a WebSocket, or one POST per request with the
 * `swarm-session` header when polling. Both transports look the same to the saga
 * (features/live/sagas.ts): `request` answers by rid, pushes and the end of the
 * connection arrive through `listen`.
 */

export const SWARM_PATH = '/swarm';
export const SWARM_SOURCE = 42;
/** Websocket open timeout (spec 000 section 9). */
export const SOCKET_TIMEOUT_MS = 5000;
/** An answer that does not come within this time ends the connection. */
export const ANSWER_TIMEOUT_MS = 15_000;

export const SWARM_OK = 0;
export const SWARM_SESSION_LOST = 5;
export const SWARM_NOT_LOGGED_IN = 12;

export interface SwarmAnswer<T = unknown> {
  code: number;
  rid: string | number;
  data: T;
  msg?: string;
}

/** `{subid: diff}` of a push. */
export type PushData = Record<string, unknown>;

export type ConnectionEvent = { type: 'push'; data: PushData } | { type: 'closed' } | { type: 'lost' };

export class SwarmError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const isSessionLost = (err: unknown) => err instanceof SwarmError && err.code === SWARM_SESSION_LOST;

export interface SwarmConnection {
  readonly kind: 'socket' | 'poll';
  /** Resolves with `data` on code 0; rejects with a SwarmError otherwise. */
  request<T = unknown>(command: string, params?: Record<string, unknown>): Promise<T>;
  listen(listener: (event: ConnectionEvent) => void): () => void;
  /** The session is gone (code 5 on any request): the saga starts a new one. */
  signalLost(): void;
  close(): void;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies a push diff: `null` deletes a key, a scalar (or array) replaces, an object
 * merges key by key. Pure: untouched branches keep their identity (cheap re-renders).
 */
export function mergeDiff<T = unknown>(target: T, diff: unknown): T {
  if (!isObject(diff)) return diff as T;
  const base: Record<string, unknown> = isObject(target) ? target : {};
  const out: Record<string, unknown> = { ...base };
  for (const [key, change] of Object.entries(diff)) {
    if (change === null) delete out[key];
    else out[key] = mergeDiff(base[key], change);
  }
  return out as T;
}
export type { Json };

class Emitter {
  private listeners = new Set<(event: ConnectionEvent) => void>();
  private ended = false;

  listen(listener: (event: ConnectionEvent) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  emit(event: ConnectionEvent) {
    if (this.ended) return;
    if (event.type === 'closed') this.ended = true;
    [...this.listeners].forEach((l) => l(event)); // a copy: a listener added meanwhile misses this event
  }
}

function answerOrThrow<T>(answer: SwarmAnswer<T>): T {
  if (answer.code !== SWARM_OK) throw new SwarmError(answer.code, answer.msg ?? `swarm code ${answer.code}`);
  return answer.data;
}

export function swarmSocketUrl(location: Pick<Location, 'protocol' | 'host'> = window.location) {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${SWARM_PATH}`;
}

/** Opens the WebSocket; rejects when it does not open within `timeoutMs`. */
export function openSocket(url = swarmSocketUrl(), timeoutMs = SOCKET_TIMEOUT_MS): Promise<SwarmConnection> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error('websocket timeout'));
    }, timeoutMs);
    ws.onopen = () => {
      clearTimeout(timer);
      resolve(new SocketConnection(ws));
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new Error('websocket error'));
    };
  });
}

class SocketConnection implements SwarmConnection {
  readonly kind = 'socket' as const;
  private emitter = new Emitter();
  private pending = new Map<string, { resolve: (a: SwarmAnswer) => void; reject: (e: Error) => void }>();
  private rid = 0;

  constructor(private ws: WebSocket) {
    ws.onmessage = (message) => this.receive(String(message.data));
    ws.onclose = () => this.end();
    ws.onerror = () => this.ws.close();
  }

  private receive(text: string) {
    let answer: SwarmAnswer;
    try {
      answer = JSON.parse(text) as SwarmAnswer;
    } catch {
      return;
    }
    if (String(answer.rid) === '0') {
      if (answer.code === SWARM_OK && isObject(answer.data)) this.emitter.emit({ type: 'push', data: answer.data });
      return;
    }
    const waiting = this.pending.get(String(answer.rid));
    this.pending.delete(String(answer.rid));
    waiting?.resolve(answer);
  }

  private end() {
    this.pending.forEach((p) => p.reject(new Error('websocket closed')));
    this.pending.clear();
    this.emitter.emit({ type: 'closed' });
  }

  request<T>(command: string, params: Record<string, unknown> = {}): Promise<T> {
    const rid = `c${++this.rid}`;
    return new Promise<SwarmAnswer<T>>((resolve, reject) => {
      if (this.ws.readyState !== WebSocket.OPEN) return reject(new Error('websocket closed'));
      const timer = setTimeout(() => {
        this.pending.delete(rid);
        reject(new Error('answer timeout'));
        this.close();
      }, ANSWER_TIMEOUT_MS);
      this.pending.set(rid, {
        resolve: (a) => (clearTimeout(timer), resolve(a as SwarmAnswer<T>)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.ws.send(JSON.stringify({ command, params, rid }));
    }).then(answerOrThrow);
  }

  listen(listener: (event: ConnectionEvent) => void) {
    return this.emitter.listen(listener);
  }

  signalLost() {
    this.emitter.emit({ type: 'lost' });
  }

  close() {
    this.ws.close();
    this.end();
  }
}

/** HTTP long-poll: the saga calls `whats_up` every 500 ms and applies each push in order. */
export class PollConnection implements SwarmConnection {
  readonly kind = 'poll' as const;
  private emitter = new Emitter();
  private sid: string | null = null;
  private rid = 0;

  constructor(
    private url = SWARM_PATH,
    private fetchImpl: typeof fetch = (...args) => fetch(...args),
  ) {}

  async request<T>(command: string, params: Record<string, unknown> = {}): Promise<T> {
    if (command === 'request_session') this.sid = null;
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.sid) headers['swarm-session'] = this.sid;
    const res = await this.fetchImpl(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ command, params, rid: `p${++this.rid}` }),
    });
    if (!res.ok) throw new Error(`swarm HTTP ${res.status}`);
    const data = answerOrThrow((await res.json()) as SwarmAnswer<T>);
    if (command === 'request_session') this.sid = (data as { sid?: string }).sid ?? null;
    return data;
  }

  listen(listener: (event: ConnectionEvent) => void) {
    return this.emitter.listen(listener);
  }

  signalLost() {
    this.emitter.emit({ type: 'lost' });
  }

  close() {
    this.emitter.emit({ type: 'closed' });
  }
}

export const openPoll = (): SwarmConnection => new PollConnection();

/**
 * Browser-stored session items (spec 000 section 3): authData, session, and the
 * remembered username. A stored session is accepted only when auth token, user id,
 * session token and a future expiry are all present (spec 001 section 4).
 */
import type { AuthData } from './types';

export const AUTH_KEY = 'authData';
export const SESSION_KEY = 'session';
export const USERNAME_KEY = 'username';

function get(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function set(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* storage disabled */
  }
}

export function saveSession(auth: AuthData, session: string) {
  set(AUTH_KEY, JSON.stringify(auth));
  set(SESSION_KEY, session);
}

export function clearSession() {
  set(AUTH_KEY, null);
  set(SESSION_KEY, null);
}

function parseAuth(text: string | null): Partial<AuthData> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Partial<AuthData>) : null;
  } catch {
    return null;
  }
}

/** The stored session when it is complete and unexpired; otherwise both items are deleted. */
export function restoreSession(now = Date.now()): { auth: AuthData; session: string } | null {
  const auth = parseAuth(get(AUTH_KEY));
  const session = get(SESSION_KEY);
  const complete =
    auth && session && typeof auth.auth_token === 'string' && auth.auth_token !== '' &&
    auth.user_id !== undefined && auth.user_id !== null && auth.user_id !== '' &&
    typeof auth.expires === 'number' && auth.expires > now;
  if (!complete) {
    clearSession();
    return null;
  }
  return {
    auth: {
      auth_token: auth.auth_token!,
      user_id: auth.user_id!,
      username: auth.username ?? '',
      expires: auth.expires!,
      never_expires: auth.never_expires === true,
    },
    session,
  };
}

export const readRememberedUsername = () => get(USERNAME_KEY) ?? '';
export const rememberUsername = (username: string | null) => set(USERNAME_KEY, username);

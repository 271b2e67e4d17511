/** The staff token lives in sessionStorage: it ends with the tab (and after 8 hours on the server). */
export interface StaffAuth {
  token: string;
  role: string;
  username: string;
  /** As the server gave it (epoch ms or s, or a date string). */
  expires: number | string | null;
}

export const STORAGE_KEY = 'backofficeAuth';

const expiresAt = (v: StaffAuth['expires']): number | null => {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') return v < 1e12 ? v * 1000 : v;
  const n = Number(v);
  if (Number.isFinite(n)) return n < 1e12 ? n * 1000 : n;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
};

export function loadStaffAuth(now = Date.now()): StaffAuth | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const auth = JSON.parse(raw) as StaffAuth;
    const at = expiresAt(auth.expires);
    if (!auth.token || (at !== null && at <= now)) {
      sessionStorage.removeItem(STORAGE_KEY);
      return null;
    }
    return auth;
  } catch {
    return null;
  }
}

export function saveStaffAuth(auth: StaffAuth) {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(auth));
  } catch {
    /* private mode: the token lives in memory only */
  }
}

export function clearStaffAuth() {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    /* nothing stored */
  }
}

/**
 * The safer gambling desk's data and rules (DESIGN.md "Responsible gambling"): a member as
 * GET /api/backoffice/members/{id}/safer answers it (limits, time-out, self-exclusion, reality
 * check, the history of changes), and what staff must give: a time-out length from the member's
 * own list with a reason (staff start time-outs, never lift one). Pure: saferDesk.test.tsx.
 */
import { TIMEOUT_HOURS, settingsOf, type RgSettings } from '../safer/model';

export interface HistoryEntry {
  /** Unix seconds. */
  at: number;
  what: string;
  by: string;
  detail: string;
}

export interface MemberSafer extends RgSettings {
  user_id: string;
  history: HistoryEntry[];
}

export interface Msg {
  key: string;
  args?: Array<string | number>;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function memberOf(data: unknown): MemberSafer {
  const d = (data ?? {}) as Record<string, unknown>;
  const history = (Array.isArray(d.history) ? d.history : []).map((raw): HistoryEntry => {
    const h = (raw ?? {}) as Record<string, unknown>;
    return { at: Number(h.at) || 0, what: text(h.what), by: text(h.by), detail: text(h.detail) };
  });
  // the newest first, whatever order the answer has
  history.sort((a, b) => b.at - a.at);
  return { ...settingsOf(d), user_id: text(d.user_id), history };
}

/** A member's user id as staff type it: digits. */
export const userIdProblem = (v: string): Msg | null => (/^\d{1,20}$/.test(v.trim()) ? null : { key: 'bo.safer.v.user_id' });

/** The longest reason staff give (characters, as the server counts them). */
export const REASON_MAX = 200;

/** A time-out staff start: one of the member's own lengths, and why (kept in the member's history). */
export function timeoutProblems(hours: number, reason: string): { hours?: Msg; reason?: Msg } {
  const errors: { hours?: Msg; reason?: Msg } = {};
  if (!(TIMEOUT_HOURS as readonly number[]).includes(hours)) errors.hours = { key: 'validation.required' };
  if (!reason.trim()) errors.reason = { key: 'bo.v.reason' };
  else if ([...reason.trim()].length > REASON_MAX) errors.reason = { key: 'bo.safer.v.reason_max', args: [REASON_MAX] };
  return errors;
}

/**
 * The history's `what` (limit_set, limit_raise_requested, limit_removal_requested, time_out,
 * self_exclusion, reality_check) in the staff's language when the language file names it, else as sent.
 */
export function whatText(t: (key: string) => string, what: string): string {
  const key = `bo.safer.what.${what}`;
  const found = t(key);
  return found === key ? what : found;
}

/** Unix milliseconds in the server's detail text ('until 1765238400000') as the desk shows times. */
export function detailText(detail: string, format: (ms: number) => string): string {
  return detail.replace(/\b\d{13}\b/g, (ms) => format(Number(ms)));
}

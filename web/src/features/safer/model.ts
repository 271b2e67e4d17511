/**
 * Safer gambling (DESIGN.md "Responsible gambling (wire contract)"): the member's deposit,
 * loss and stake limits per calendar day, week and month, a time-out, a self-exclusion, the
 * reality check interval, as the main API answers them (`user/rglimits`), and the rules the screens show: a first or lower limit
 * applies at once, a higher one or a removal 24 hours later (`pending`). Pure functions, shared
 * by the member's page and the back office; tested in safer.test.ts.
 */
import Big from 'big.js';
import dayjs from 'dayjs';
import type { Message } from '../../api/errors';
import { formatMoney } from '../../shared/money';
import { formatDateTime } from '../../shared/time';

export { SAFER_PATH } from './paths';
/** The page's section that the reality check links to. */
export const STATEMENT_ANCHOR = 'statement';

export const LIMIT_KINDS = ['deposit', 'loss', 'stake'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];
export const LIMIT_PERIODS = ['day', 'week', 'month'] as const;
export type LimitPeriod = (typeof LIMIT_PERIODS)[number];

/** A change that waits its 24 hours: the new amount, or null for a removal. */
export interface PendingChange {
  amount: string | null;
  /** Unix seconds. */
  effective_at: number;
}

export interface RgLimit {
  kind: LimitKind;
  period: LimitPeriod;
  amount: string;
  /** What the current period has used of it. */
  used: string;
  pending?: PendingChange | null;
}

export interface RgSettings {
  limits: RgLimit[];
  /** Unix seconds; 0 when none. */
  timeout_until: number;
  self_excluded_until: number;
  reality_check_minutes: number;
  currency: string;
}

/** Time-out lengths in hours: 24 hours, 48 hours, 7 days, 2 weeks, 6 weeks (`user/timeout {hours}`). */
export const TIMEOUT_HOURS = [24, 48, 168, 336, 1008] as const;
/** Self-exclusion lengths in months: 6 months, 1, 2 and 5 years (`user/selfexclude {months}`). */
export const EXCLUSION_MONTHS = [6, 12, 24, 60] as const;
/** Reality check intervals in minutes (spec 000: no limit, 10, 20, 30 minutes, 1, 2, 4, 6, 8 hours). */
export const REALITY_CHECK_MINUTES = [0, 10, 20, 30, 60, 120, 240, 360, 480] as const;

/** The largest amount a limit takes (the form's own bound; the server has the last word). */
export const LIMIT_MAX = '1000000000';

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

function limitOfWire(raw: unknown): RgLimit | null {
  const l = (raw ?? {}) as Record<string, unknown>;
  if (!LIMIT_KINDS.includes(l.kind as LimitKind) || !LIMIT_PERIODS.includes(l.period as LimitPeriod)) return null;
  const p = l.pending as Record<string, unknown> | null | undefined;
  const pending = p && typeof p === 'object'
    ? { amount: p.amount === null || p.amount === undefined || p.amount === '' ? null : String(p.amount), effective_at: num(p.effective_at) }
    : null;
  return { kind: l.kind as LimitKind, period: l.period as LimitPeriod, amount: str(l.amount), used: str(l.used) || '0', pending };
}

/** `data` of rglimits, rglimitset, timeout, selfexclude and realitycheck, with every field in its type. */
export function settingsOf(data: unknown): RgSettings {
  const d = (data ?? {}) as Record<string, unknown>;
  return {
    limits: (Array.isArray(d.limits) ? d.limits : []).map(limitOfWire).filter((l): l is RgLimit => l !== null),
    timeout_until: num(d.timeout_until),
    self_excluded_until: num(d.self_excluded_until),
    reality_check_minutes: num(d.reality_check_minutes),
    currency: str(d.currency),
  };
}

export const limitOf = (limits: readonly RgLimit[], kind: LimitKind, period: LimitPeriod) =>
  limits.find((l) => l.kind === kind && l.period === period) ?? null;

/** One row per kind and period, in the screen's order (null: no limit). */
export function limitRows(limits: readonly RgLimit[]) {
  return LIMIT_KINDS.map((kind) => ({ kind, periods: LIMIT_PERIODS.map((period) => ({ period, limit: limitOf(limits, kind, period) })) }));
}

const isDecimal = (v: string) => /^\d+(\.\d+)?$/.test(v.trim());
const big = (v: string) => new Big(isDecimal(v) ? v.trim() : '0');

/** How much of the limit the period has used, 0 to 1. */
export function usedShare(limit: RgLimit): number {
  const amount = big(limit.amount);
  if (amount.lte(0)) return 1;
  const share = Number(big(limit.used).div(amount).toFixed(4));
  return Math.min(1, Math.max(0, share));
}

/** Unix seconds as the member reads them. */
export const dateText = (seconds: number) => formatDateTime(seconds * 1000);

/** 'Rises to 200.00 on ...', 'Removed on ...' (or 'Changes to ...' for a wait the server gives a lower amount). */
export function pendingMessage(limit: RgLimit): Message | null {
  const p = limit.pending;
  if (!p) return null;
  const at = dateText(p.effective_at);
  if (p.amount === null) return { key: 'rg.pending.removed', args: [at] };
  const rises = big(p.amount).gt(big(limit.amount));
  return { key: rises ? 'rg.pending.rises' : 'rg.pending.changes', args: [formatMoney(p.amount), at] };
}

/** The amount field of the limit form: a positive amount with at most two decimals. */
export function limitAmountProblem(text: string): Message | null {
  const v = text.trim();
  if (!v) return { key: 'validation.required', args: [] };
  if (!/^\d+(\.\d{1,2})?$/.test(v) || new Big(v).lte(0)) return { key: 'rg.v.amount', args: [] };
  if (new Big(v).gt(LIMIT_MAX)) return { key: 'rg.v.amount_max', args: [formatMoney(LIMIT_MAX, 0)] };
  return null;
}

/**
 * When a change of the limit would apply: 'now' for a first or lower limit, 'later' (24 hours)
 * for a higher one or a removal (`amount` ''), null when it changes nothing.
 */
export function changeTiming(current: RgLimit | null, amount: string): 'now' | 'later' | null {
  const v = amount.trim();
  if (v === '') return current ? 'later' : null;
  if (!isDecimal(v)) return null;
  if (!current) return 'now';
  const next = new Big(v);
  const was = big(current.amount);
  if (next.eq(was)) return current.pending ? 'now' : null; // back to the current amount: the waiting change goes
  return next.lt(was) ? 'now' : 'later';
}

export type Restriction = { kind: 'self_exclusion' | 'timeout'; until: number };

/** A self-exclusion or time-out still running at `nowMs` (the self-exclusion first: it is the longer promise). */
export function restrictionOf(settings: RgSettings | null, nowMs: number): Restriction | null {
  if (!settings) return null;
  const now = nowMs / 1000;
  if (settings.self_excluded_until > now) return { kind: 'self_exclusion', until: settings.self_excluded_until };
  if (settings.timeout_until > now) return { kind: 'timeout', until: settings.timeout_until };
  return null;
}

/** When a time-out of `hours` taken at `nowMs` ends (unix seconds). */
export const timeoutEnd = (hours: number, nowMs: number) => Math.floor(nowMs / 1000) + hours * 3600;
/** When a self-exclusion of `months` taken at `nowMs` ends (unix seconds; calendar months). */
export const exclusionEnd = (months: number, nowMs: number) => dayjs(nowMs).add(months, 'month').unix();

/** A signed amount for the net result: '+12.50', '-30.00', '0.00'. */
export function signedMoney(value: string): string {
  if (!/^[+-]?\d+(\.\d+)?$/.test(value.trim())) return value;
  const text = formatMoney(value.trim().replace(/^\+/, ''));
  return new Big(value.trim().replace(/^\+/, '')).gt(0) ? `+${text}` : text;
}

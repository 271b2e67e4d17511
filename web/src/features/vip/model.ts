/** VIP answers (api/src/routes/vip.rs, docs/vip.md). Money and rates are decimal strings. */
import { formatDateTime } from '../../shared/time';

export interface LevelInfo {
  id: number;
  level: number;
  vipname: string;
  vippoint: string;
  monthsalary: string;
  growgift: string;
  cashflow: string;
  money: string;
  bets: string;
  sport: string;
  ag: string;
  pg: string;
  withdrawtimes: number;
  withdrawlimits: string;
}

/** 0 not reached, 1 claimable, 2 received. */
export type ClaimStatus = 0 | 1 | 2;

export interface VipDetail {
  level: number;
  vipname: string;
  vipexpbalance: string;
  money: string;
  bets: string;
  deposits_total: string;
  turnover_total: string;
  progress: { money: string; bets: string };
  next: { level: number; vipname: string; money: string; bets: string; money_left: string; bets_left: string } | null;
  userrank: number;
  market: string;
  currency: string;
  points: string;
  gifts: Array<{ level: number; vipname: string; growgift: string; status: ClaimStatus }>;
  salary: { month: string; monthsalary: string; cashflow: string; month_turnover: string; paid: string | null; status: ClaimStatus };
  rebate: {
    day: string;
    items: Array<{ product: string; turnover: string; rate: string; amount: string; received: boolean }>;
    amount: string;
    status: ClaimStatus;
  };
  withdrawtimes: number;
  withdrawlimits: string;
  rewards: Array<{ reference: string; kind: string; key: string; level: number; amount: string; turnover_required: string; time: number }>;
}

export interface LedgerRow {
  id: string;
  time: number;
  time_ms: number;
  /** The source event's position: orders rows of one millisecond. */
  seq: number;
  kind: string;
  money: string;
  bets: string;
  exp: string;
  score: string;
  money_after: string;
  exp_after: string;
  level: number;
}

export interface McoinDetail {
  balance: string;
  earned: string;
  spent: string;
  per_turnover: string;
  list: LedgerRow[];
  total: number;
}

/** Progress bar width: a percentage string, clamped to 0..100 (spec 001 section 9: capped at 100). */
export function barWidth(pct: string): string {
  const n = Number(pct);
  if (!Number.isFinite(n)) return '0%';
  return `${Math.min(100, Math.max(0, n))}%`;
}

/** The growth chart's points: experience after each movement, oldest first. */
export function growthSeries(rows: LedgerRow[]): { x: number[]; y: number[] } {
  const sorted = [...rows].sort((a, b) => a.time_ms - b.time_ms || a.seq - b.seq);
  return { x: sorted.map((r) => r.time_ms / 1000), y: sorted.map((r) => Number(r.exp_after)) };
}

/** YYYY-MM-DD HH:mm in the member's zone (Asia/Bangkok, China time for zhh: shared/time.ts). */
export function formatTime(seconds: number): string {
  return formatDateTime(seconds * 1000);
}

/** Pure rules of the season pages (spec 001 sections 2.1, 2.10, 3, 4), tested in model.test.ts. */

export interface SeasonRef {
  seasonid: number;
  name: string;
  starttime: string;
  endtime: string;
  start_ms: number;
  end_ms: number;
}

export interface SeasonInfo extends Partial<SeasonRef> {
  status: 'season' | 'off-season';
  daysleft?: number;
  previous?: SeasonRef | null;
  next?: SeasonRef | null;
}

export interface TaskView {
  id: number;
  tasktype: number;
  taskvalue: string;
  nowvalue: string;
  taskdesc: string;
  bonusname: string;
  cash: string;
  status: number;
  needcheck: number;
  percent: number;
}

export interface RankInfo {
  seasonid: number;
  userrank: number;
  status: number;
  jiangpin: string;
  cash: string;
  clothes: number;
  mouse: number;
  actRand: string;
  contact_support: boolean;
}

/**
 * The rank reward's claim steps (spec 001 sections 2.10 and 4): a physical prize first
 * asks for the shirt size when it holds a shirt (S1ReciveOne), then for the delivery
 * address (S1ReciveTwo); a cash-only reward is claimed at once.
 */
export type ClaimStep = 'one' | 'two';
export function rankClaimSteps(info: Pick<RankInfo, 'clothes' | 'mouse'>): ClaimStep[] {
  return info.clothes === 1 || info.mouse === 1 ? ['one', 'two'] : [];
}

/** The delivery address (`user/setuseraddress`): every part required, at most 100 characters. */
export const ADDRESS_FIELDS = ['consignee', 'phone', 'province', 'city', 'district', 'address'] as const;
export type AddressForm = Record<(typeof ADDRESS_FIELDS)[number], string>;
export function addressComplete(form: Partial<AddressForm> | null | undefined): boolean {
  return !!form && ADDRESS_FIELDS.every((k) => {
    const v = (form[k] ?? '').trim();
    return v.length > 0 && v.length <= 100;
  });
}

/** Shirt sizes of the season reward (spec 001 section 4). */
export const SHIRT_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'] as const;

/** Season routes (spec 001 section 2.1) without the brand-prefixed pair. */
const NAMED: Record<string, { seasonId?: number; report?: boolean }> = {
  s1SeasonEn: { seasonId: 1 },
  seasonMissionEn: {},
  seasonMission: {},
  s1Report: { seasonId: 1, report: true },
  s2Report: { seasonId: 2, report: true },
  s3Report: { seasonId: 3, report: true },
  s4season: { seasonId: 4 },
  s5season: { seasonId: 5 },
  s6Season: { seasonId: 6 },
  s6seasonMission: { seasonId: 6 },
  nextSeason: {},
  nextSeasonThird: {},
  S2022season: {},
  S2022seasonMission: {},
};

/** Whether `segment` is a season page: a named one or `/{brand}Season`, `/{brand}SeasonMissions`. */
export function isSeasonPath(segment: string): boolean {
  return segment in NAMED || /^[A-Za-z][A-Za-z0-9]*Season(Missions)?$/.test(segment);
}

/** The season a page shows (none: the running one) and whether it is a report page. */
export function seasonOfPath(path: string): { seasonId?: number; report: boolean } {
  const segment = path.split('/').filter(Boolean)[0] ?? '';
  const named = NAMED[segment];
  return { seasonId: named?.seasonId, report: Boolean(named?.report) };
}

/**
 * Whether the season a page names (/s4season, /s6Season ...) has not started yet: a later one
 * than the running season, or between seasons any after the one that just ended (none ended:
 * every season). Such a page says "Season N has not started yet" and asks for no tasks or
 * rank reward (the server would refuse them with -64004). Pages of no particular season and
 * an unknown calendar (`info` not loaded) are never "not started".
 */
export function seasonNotStarted(seasonId: number | undefined, info: SeasonInfo | null): boolean {
  if (seasonId === undefined || !info) return false;
  if (info.status === 'season') return seasonId > (info.seasonid ?? 0);
  return seasonId > (info.previous?.seasonid ?? 0);
}

/** Season refusals with a text of their own (docs/seasons.md; -64010 is the home team's). */
const REFUSALS = [-64001, -64002, -64004, -64005, -64020, -64021, -64022, -64023, -64024];

/**
 * The language-file message of a season refusal (task and rank claims, the home team), or null
 * for other codes. The server's English msg carries what the text needs: the active days of
 * -64003, the staff's reason of -64007 (as typed), the sport of -64010.
 */
export function seasonRefusal(status: number, serverMsg = ''): { key: string; args: string[] } | null {
  if (REFUSALS.includes(status)) return { key: `season.error.${status}`, args: [] };
  if (status === -64003) {
    const days = /more than (\d+)/.exec(serverMsg)?.[1];
    return days ? { key: 'season.error.-64003', args: [days] } : null;
  }
  if (status === -64007) return { key: 'season.error.-64007', args: [serverMsg.replace(/^The claim was rejected:\s*/, '')] };
  if (status === -64010) return { key: /basketball/i.test(serverMsg) ? 'season.error.-64010_basketball' : 'season.error.-64010', args: [] };
  return null;
}

/** The claim button of a task (status 0 undone, 1 claimable, 3 under review, else received). */
export function taskButton(status: number): { key: string; enabled: boolean } {
  if (status === 1) return { key: 'season.receive', enabled: true };
  if (status === 0) return { key: 'season.not_eligible', enabled: false };
  if (status === 3) return { key: 'season.under_review', enabled: false };
  if (status === 4) return { key: 'season.rejected', enabled: false };
  return { key: 'season.received', enabled: false };
}

/**
 * The competition-page season banner (spec 001 section 2.10): only once the season has
 * started, has an end time, and at least 1 day remains.
 */
export function bannerDays(info: SeasonInfo | null, nowMs: number): number | null {
  if (!info || info.status !== 'season' || info.start_ms == null || !info.end_ms) return null;
  if (nowMs < info.start_ms) return null;
  const days = Math.floor((info.end_ms - nowMs) / 86_400_000);
  return days >= 1 ? days : null;
}

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

/**
 * Promotions, the rewards half (spec 001 sections 2.1, 2.12, 3, 4, 7.4, 8, 9; docs/promotions.md):
 * pure helpers the pages and tests share.
 */

/** Campaign list pages: /preferential (zhh) and /preferentialin (other languages). */
export const PROMO_LISTS = ['preferential', 'preferentialin'];

/**
 * Named campaign pages of spec 001 section 2.1 (non-Chinese and Chinese); each renders the
 * campaign template with the campaign whose slug is the path. /promo/{news} does too.
 */
export const CAMPAIGN_PATHS = [
  'actione', 'actitwo', 'acti3', 'acti4', 'europeanCup2021', 'europeanCupShare', 'europeanCup11People',
  'actithree', 'actifour', 'actifive', 'actisix', 'saveMoney', 'backWater', 'usdtDeposit', 'newDeposit2025',
];

/** Pages of this feature with no spec path of their own (documented in docs/promotions.md). */
export const PROMO_PAGES = ['novicetask', 'prizedraw', 'shop', 'recommendedgift'] as const;
export type PromoPage = (typeof PROMO_PAGES)[number];

export type PromoRoute =
  | { name: 'list' }
  | { name: 'campaign'; slug: string }
  | { name: PromoPage };

const SLUG = /^[A-Za-z0-9_-]{1,40}$/;

/** The promotions route of a path, or null when it is not one. */
export function matchPromo(first: string, second: string | undefined, more: number): PromoRoute | null {
  if (more > 0) return null;
  if (first === 'promo') return second && SLUG.test(second) ? { name: 'campaign', slug: second } : null;
  if (second) return null;
  if (PROMO_LISTS.includes(first)) return { name: 'list' };
  if (CAMPAIGN_PATHS.includes(first)) return { name: 'campaign', slug: first };
  const page = PROMO_PAGES.find((p) => p === first);
  return page ? { name: page } : null;
}

/** Task reward state (spec 001 section 4): 0 undone, 1 claimable (receive button), else received. */
export function taskButton(status: number): { key: string; enabled: boolean } {
  if (status === 1) return { key: 'promo.receive', enabled: true };
  if (status === 0) return { key: 'promo.undone', enabled: false };
  if (status === 3) return { key: 'season.under_review', enabled: false };
  if (status === 4) return { key: 'season.rejected', enabled: false };
  return { key: 'promo.received', enabled: false };
}

/** The prize draw's answer (spec 001 section 8): -21404 has its own text, other statuses the server's msg. */
export function drawMessage(status: number, msg: string, t: (key: string, ...args: string[]) => string): string {
  return status === -21404 ? t('promo.draw_gone') : msg;
}

/** Referral record action (spec 001 section 3): 1 first deposit, otherwise promotion. */
export const recordAction = (action: number) => (action === 1 ? 'promo.action_deposit' : 'promo.action_promotion');

/** The 7 days of the sign-in table around a streak: which are done. */
export function signinDays(rewards: string[], streak: number, signedToday: boolean) {
  const len = rewards.length;
  const done = len === 0 ? 0 : ((streak - 1) % len) + 1;
  return rewards.map((reward, i) => ({ day: i + 1, reward, done: streak > 0 && i < done, today: !signedToday && i === done % len }));
}

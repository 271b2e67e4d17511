/**
 * Staff roles and what each may use (docs/cashout-and-backoffice.md): support the
 * counter-offer queue, the seasons desk (claims, prizes) and the safer gambling desk (a
 * member's limits, time-out and verification, the document queue), auditors the audit trail,
 * admins all. The back office's own
 * paths: /backoffice/queue[/{betId}], /backoffice/audit[/{betId}], /backoffice/safer[/{userId}].
 */
export type StaffRole = 'support' | 'auditor' | 'admin' | 'finance' | 'marketing';
export type BoSection = 'queue' | 'audit' | 'finance' | 'seasons' | 'safer' | 'content' | 'promo';

const SECTION_ROLES: Record<BoSection, StaffRole[]> = {
  queue: ['support', 'admin'],
  audit: ['auditor', 'admin'],
  finance: ['finance', 'admin'],
  seasons: ['support', 'admin'],
  // responsible gambling (DESIGN.md): a member's limits, history, time-out, verification; documents to review
  safer: ['support', 'admin'],
  // notices, banners, covers, popups, news, help, campaign messages (docs/content.md)
  content: ['marketing', 'admin'],
  // campaigns, tasks and claims, the prize board, goods, fulfilment, referrals (docs/promotions.md)
  promo: ['marketing', 'admin'],
};
const SECTIONS: BoSection[] = ['queue', 'audit', 'finance', 'seasons', 'safer', 'content', 'promo'];

export const canUse = (role: string | null | undefined, section: BoSection) => SECTION_ROLES[section].includes(role as StaffRole);

/** The navigation: only what the role may use. */
export const navFor = (role: string | null | undefined): BoSection[] => SECTIONS.filter((s) => canUse(role, s));

export type BoRoute = { section: BoSection | null; betId: string | null } | { section: 'unknown'; betId: null };

export function matchBackoffice(pathname: string): BoRoute {
  const [first, section, id, ...rest] = pathname.split('/').filter(Boolean);
  if (first !== 'backoffice') return { section: 'unknown', betId: null };
  if (!section) return { section: null, betId: null };
  if (!SECTIONS.includes(section as BoSection) || rest.length > 0 || (id !== undefined && !/^\d+$/.test(id))) {
    return { section: 'unknown', betId: null };
  }
  return { section: section as BoSection, betId: id ?? null };
}

export const sectionPath = (section: BoSection, betId?: string | number | null) =>
  `/backoffice/${section}${betId !== undefined && betId !== null && betId !== '' ? `/${betId}` : ''}`;

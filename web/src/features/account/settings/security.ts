/**
 * Pure rules of the security pages (spec 001 sections 2.1, 3, 5 and 2.8; docs/client.md
 * "Security pages"), tested in security.test.ts: which ways can prove who the member is,
 * what each route parameter names, the birth-date rule and where a passed check leads.
 */
import { CERTIFIED_ITEMS, LOGIN_WAYS, type CertifiedItem, type LoginWay } from '../../../app/routes';
import type { Message } from '../../../api/errors';
import * as rules from '../../../shared/validation';
import type { UserInfo } from '../../session/types';

/** Send type 8: the safety verification, always to the member's own bound phone or e-mail. */
export const SAFETY_TYPE = 8;

/** `valtype` of each way (sendcode / checkcode: 1 phone, 2 e-mail; loginpassedit: 3 the security answer). */
export const VALTYPE: Record<LoginWay, number> = { phone: 1, email: 2, question: 3 };

/** The {changetype} of a way (/setting/changeloginsteps/N) or an item (/setting/safecertificate/N): from 1. */
export const stepsHref = (way: LoginWay) => `/setting/changeloginsteps/${LOGIN_WAYS.indexOf(way) + 1}`;
export const certificateHref = (item: CertifiedItem) => `/setting/safecertificate/${CERTIFIED_ITEMS.indexOf(item) + 1}`;

/** What the profile says about each way: whether it can be used, and the bound contact or question it shows. */
export interface WayState { way: LoginWay; available: boolean; shows: string }

type Security = Pick<UserInfo, 'phone' | 'email' | 'has_security_question'> & { security_question?: string };

export function waysFor(profile: Security | null): WayState[] {
  return LOGIN_WAYS.map((way) => {
    if (way === 'phone') return { way, available: Boolean(profile?.phone), shows: profile?.phone ?? '' };
    if (way === 'email') return { way, available: Boolean(profile?.email), shows: profile?.email ?? '' };
    return { way, available: Boolean(profile?.has_security_question), shows: profile?.security_question ?? '' };
  });
}

/** The page a passed identity check (/setting/safecertificate/{changetype}) opens. */
export const CERTIFIED_PAGE: Record<CertifiedItem, string> = { phone: '/setting/phonebind', email: '/setting/mailbind' };

/** The store id under which a passed check's uid waits for the page it opens (its `old_uid`). */
export const certificateId = (item: CertifiedItem) => `certificate:${item}`;

/**
 * Unbinding needs the other contact bound (the account keeps one for the safety verification
 * and password recovery): null when it can go ahead, else the message.
 */
export function unbindBlocked(profile: Pick<UserInfo, 'phone' | 'email'> | null, item: CertifiedItem): Message | null {
  const bound = item === 'phone' ? profile?.phone : profile?.email;
  const other = item === 'phone' ? profile?.email : profile?.phone;
  if (!bound) return { key: item === 'phone' ? 'security.no_phone' : 'security.no_email', args: [] };
  if (!other) return { key: 'error.-10106', args: [] };
  return null;
}

/** Birth date (spec 001 section 5): age 18 to 100 on `today`; the picker's bounds and the DD/MM/YYYY display. */
export function birthRule(value: string, today: Date): Message | null {
  const [y, m, d] = value.split('-').map(Number);
  const day = new Date(Date.UTC(y!, m! - 1, d!));
  const calendar = /^\d{4}-\d{2}-\d{2}$/.test(value) && day.getUTCMonth() === m! - 1 && day.getUTCDate() === d;
  if (value && !calendar) return { key: 'validation.value_invalid', args: [value] };
  return rules.birthDate(today)(value, '');
}

export const birthBounds = (today: Date) => ({
  min: rules.yearsBefore(today, rules.LIMITS.age[1]),
  max: rules.yearsBefore(today, rules.LIMITS.age[0]),
});

/** Set once (spec 001 section 3: read-only in the personal details once there). */
export const birthEditable = (profile: Pick<UserInfo, 'birth_date'> | null) => !profile?.birth_date;

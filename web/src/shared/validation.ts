/**
 * Account field rules of spec 001 section 5, one place for every form. A rule
 * returns null when the value passes, else the message as a language-file key
 * with its placeholder values. Markets: zhh (Chinese) and the others (eng, tha).
 */
import type { Message } from '../api/errors';

export type Market = string;
export type Rule = (value: string, market: Market) => Message | null;

const msg = (key: string, ...args: Array<string | number>): Message => ({ key, args });
const isZhh = (market: Market) => market === 'zhh';

export const LIMITS = {
  username: [2, 24],
  password: [6, 32],
  nickname: [4, 24],
  email: [5, 50],
  age: [18, 100],
  code: 4,
  inviteCode: 6,
} as const;

export const required: Rule = (v) => (v.trim() === '' ? msg('validation.required') : null);

export const phone: Rule = (v, market) => {
  const value = v.trim();
  if (!value) return msg('validation.phone_blank');
  const ok = isZhh(market) ? /^1\d{10}$/.test(value) : /^0\d{8,10}$/.test(value);
  return ok ? null : msg('validation.phone_invalid');
};

export const username: Rule = (v, market) => {
  const value = v.trim();
  if (!value) return msg('validation.required');
  const [min, max] = LIMITS.username;
  const length = Array.from(value).length;
  if (length < min) return msg('validation.min_length', min);
  if (length > max) return msg('validation.max_length', max + 1);
  const ok = isZhh(market) ? /^[A-Za-z0-9_\u4e00-\u9fa5]+$/.test(value) : /^[\x21-\x7e]+$/.test(value);
  return ok ? null : msg('validation.username_invalid');
};

/** Registration password: 6-32 letters and digits, not all one kind. */
export const password: Rule = (v) => {
  if (!v) return msg('validation.password_empty');
  if (!/^[A-Za-z0-9]+$/.test(v)) return msg('validation.password_chars');
  if (v.length < LIMITS.password[0]) return msg('validation.password_short');
  if (v.length > LIMITS.password[1] || /^\d+$/.test(v) || /^[A-Za-z]+$/.test(v)) return msg('validation.password_rule');
  return null;
};

/** Login form password: present and at least 6 characters (the server judges the rest). */
export const loginPassword: Rule = (v) => {
  if (!v) return msg('validation.password_empty');
  return v.length < LIMITS.password[0] ? msg('validation.password_short') : null;
};

export const repeatOf =
  (other: string): Rule =>
  (v) => {
    if (!v) return msg('validation.password_empty');
    return v === other ? null : msg('validation.password_mismatch');
  };

export const notSameAs =
  (login: string): Rule =>
  (v) =>
    v && login && v === login ? msg('validation.password_same_as_login') : null;

export const nickname: Rule = (v) => {
  const length = Array.from(v.trim()).length;
  if (length === 0) return msg('validation.required');
  if (length < LIMITS.nickname[0]) return msg('validation.min_length', LIMITS.nickname[0]);
  if (length > LIMITS.nickname[1]) return msg('validation.max_length', LIMITS.nickname[1] + 1);
  return null;
};

const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;

export const email: Rule = (v) => {
  const value = v.trim();
  if (!value) return msg('validation.email_blank');
  if (value.length < LIMITS.email[0] || value.length > LIMITS.email[1]) return msg('validation.email_invalid');
  return EMAIL.test(value) ? null : msg('validation.email_not_valid');
};

/** SMS / e-mail verification code: 4 digits. */
export const verifyCode: Rule = (v) => {
  if (!v.trim()) return msg('validation.code_empty');
  return /^\d{4}$/.test(v.trim()) ? null : msg('validation.code_invalid');
};

/** Login image code: 4 digits. */
export const captcha = verifyCode;

export const inviteCode: Rule = (v) =>
  v.trim() === '' || /^[A-Za-z0-9]{6}$/.test(v.trim()) ? null : msg('validation.invite_code');

export const agree = (checked: boolean): Message | null => (checked ? null : msg('validation.agree'));

/** Age in whole years on `today` of an ISO date (YYYY-MM-DD). */
export function ageOn(birthIso: string, today: Date): number {
  const [y, m, d] = birthIso.split('-').map(Number);
  if (!y || !m || !d) return NaN;
  let age = today.getFullYear() - y;
  if (today.getMonth() + 1 < m || (today.getMonth() + 1 === m && today.getDate() < d)) age -= 1;
  return age;
}

export const birthDate =
  (today = new Date()): Rule =>
  (v) => {
    if (!v) return msg('validation.required');
    const age = ageOn(v, today);
    return age >= LIMITS.age[0] && age <= LIMITS.age[1] ? null : msg('validation.value_invalid', formatDisplayDate(v));
  };

/** Real name: zhh 2-20 Chinese characters; others 1-30 characters. */
export const realName: Rule = (v, market) => {
  const value = v.trim();
  if (!value) return msg('validation.required');
  const ok = isZhh(market) ? /^[\u4e00-\u9fa5·]{2,20}$/.test(value) : Array.from(value).length <= 30;
  return ok ? null : msg('validation.value_invalid', value);
};

/** Forgot-password inputs have their own messages. */
export const forgotPhone: Rule = (v, market) => (phone(v, market) ? msg('validation.forgot_phone') : null);
export const forgotEmail: Rule = (v, market) => (email(v, market) ? msg('validation.forgot_email') : null);

/** DD/MM/YYYY for the birth-date picker display. */
export function formatDisplayDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return y && m && d ? `${d}/${m}/${y}` : '';
}

/** ISO YYYY-MM-DD of a date `years` before `today` (the picker's bounds). */
export function yearsBefore(today: Date, years: number): string {
  const d = new Date(today.getFullYear() - years, today.getMonth(), today.getDate());
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Runs the rules in order; the first message wins. */
export function check(value: string, market: Market, ...rules: Rule[]): Message | null {
  for (const rule of rules) {
    const result = rule(value, market);
    if (result) return result;
  }
  return null;
}

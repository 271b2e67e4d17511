import { describe, expect, it } from 'vitest';
import { readSkin } from '../test/skins';
import * as rules from './validation';
import { validateRegistration } from '../features/account/RegisterPopup';

const key = (m: { key: string } | null) => m?.key ?? null;
const eng = readSkin('languages/eng.json');

describe('phone per market', () => {
  it.each([
    ['zhh', '13800000000', null],
    ['zhh', '1380000000', 'validation.phone_invalid'],
    ['zhh', '23800000000', 'validation.phone_invalid'],
    ['zhh', '', 'validation.phone_blank'],
    ['eng', '081234567', null],
    ['eng', '0812345678', null],
    ['tha', '08123456789', null],
    ['tha', '0812345', 'validation.phone_invalid'],
    ['eng', '812345678', 'validation.phone_invalid'],
    ['eng', '081234567890', 'validation.phone_invalid'],
    ['eng', '13800000000', 'validation.phone_invalid'],
  ])('%s %s', (market, value, expected) => expect(key(rules.phone(value, market))).toBe(expected));
});

describe('username 2-24', () => {
  it('checks length and characters per market', () => {
    expect(key(rules.username('a', 'eng'))).toBe('validation.min_length');
    expect(rules.username('a', 'eng')!.args).toEqual([2]);
    expect(key(rules.username('ab', 'eng'))).toBeNull();
    expect(key(rules.username('x'.repeat(24), 'eng'))).toBeNull();
    expect(key(rules.username('x'.repeat(25), 'eng'))).toBe('validation.max_length');
    expect(key(rules.username('张三_01', 'zhh'))).toBeNull();
    expect(key(rules.username('张三', 'eng'))).toBe('validation.username_invalid');
    expect(key(rules.username('a-b', 'zhh'))).toBe('validation.username_invalid');
  });
});

describe('password 6-32, letters and digits, not all one kind', () => {
  it.each([
    ['', 'validation.password_empty'],
    ['abc12', 'validation.password_short'],
    ['abc123', null],
    ['123456', 'validation.password_rule'],
    ['abcdef', 'validation.password_rule'],
    ['abc 123', 'validation.password_chars'],
    ['a1'.repeat(16), null],
    ['a1'.repeat(16) + 'x', 'validation.password_rule'],
  ])('%j', (value, expected) => expect(key(rules.password(value, 'eng'))).toBe(expected));

  it('needs the repeat to match and differ from the login name', () => {
    expect(key(rules.repeatOf('abc123')('abc124', 'eng'))).toBe('validation.password_mismatch');
    expect(key(rules.repeatOf('abc123')('abc123', 'eng'))).toBeNull();
    expect(key(rules.notSameAs('abc123')('abc123', 'eng'))).toBe('validation.password_same_as_login');
  });
});

describe('other fields', () => {
  it('nickname 4-24', () => {
    expect(key(rules.nickname('abc', 'eng'))).toBe('validation.min_length');
    expect(key(rules.nickname('abcd', 'eng'))).toBeNull();
    expect(key(rules.nickname('x'.repeat(25), 'eng'))).toBe('validation.max_length');
  });

  it('e-mail 5-50 and pattern', () => {
    expect(key(rules.email('', 'eng'))).toBe('validation.email_blank');
    expect(key(rules.email('a@b', 'eng'))).toBe('validation.email_invalid');
    expect(key(rules.email('a@b.co', 'eng'))).toBeNull();
    expect(key(rules.email('abcdef', 'eng'))).toBe('validation.email_not_valid');
    expect(key(rules.email(`${'a'.repeat(45)}@b.com`, 'eng'))).toBe('validation.email_invalid');
  });

  it('invite code: empty or 6 letters/digits', () => {
    expect(rules.inviteCode('', 'eng')).toBeNull();
    expect(rules.inviteCode('AB12cd', 'eng')).toBeNull();
    expect(key(rules.inviteCode('AB12c', 'eng'))).toBe('validation.invite_code');
    expect(key(rules.inviteCode('AB12c!', 'eng'))).toBe('validation.invite_code');
  });

  it('codes: 4 digits', () => {
    expect(key(rules.verifyCode('', 'eng'))).toBe('validation.code_empty');
    expect(key(rules.verifyCode('123', 'eng'))).toBe('validation.code_invalid');
    expect(rules.verifyCode('1234', 'eng')).toBeNull();
  });

  it('age 18-100', () => {
    const today = new Date(2025, 5, 15);
    const rule = rules.birthDate(today);
    expect(rule('2007-06-15', 'eng')).toBeNull();
    expect(key(rule('2007-06-16', 'eng'))).toBe('validation.value_invalid');
    expect(rule('1925-06-16', 'eng')).toBeNull();
    expect(key(rule('1924-06-14', 'eng'))).toBe('validation.value_invalid');
    expect(rule('2007-06-16', 'eng')!.args).toEqual(['16/06/2007']);
    expect(rules.yearsBefore(today, 18)).toBe('2007-06-15');
  });

  it('forgot password has its own phone and e-mail messages', () => {
    expect(key(rules.forgotPhone('12', 'zhh'))).toBe('validation.forgot_phone');
    expect(key(rules.forgotEmail('x', 'eng'))).toBe('validation.forgot_email');
  });
});

describe('registration form rules per variant', () => {
  const empty = {
    phone: '', email: '', username: '', code: '', captcha: '', password: '', repassword: '',
    country_code: '', currency_name: '', gender: '', birth_date: '', invite_code: '', promo_code: '',
  };
  it('checks only the variant’s own identity field', () => {
    const phone = validateRegistration(0, 'zhh')(empty);
    expect(key(phone.phone!)).toBe('validation.phone_blank');
    expect(phone.email).toBeNull();
    expect(phone.captcha).toBeNull();
    const user = validateRegistration(2, 'eng')({ ...empty, username: 'abc123', password: 'abc123' });
    expect(key(user.username!)).toBeNull();
    expect(key(user.password!)).toBe('validation.password_same_as_login');
    expect(key(user.captcha!)).toBe('validation.code_empty');
    expect(user.code).toBeNull();
  });

  it('shows the English texts of spec 001 section 5', () => {
    const r = validateRegistration(0, 'eng')(empty);
    expect(eng[r.phone!.key]).toBe('Phone number can not be blank');
    expect(eng[r.password!.key]).toBe('password cannot be empty');
    expect(eng[r.gender!.key]).toBe('Required');
  });
});

describe('language files carry every validation message of spec 001 section 5 once', () => {
  const TEXTS = [
    'Phone number can not be blank', 'This is not a valid phone number', 'Invalid username',
    'This username already exists in our database, please enter another',
    '6 to 32 characters in length (a combination of numbers and letters)', 'Allowed characters are A-Z, a-z, 0-9',
    "Password can't be same as login.", 'Password is too short', 'Two passwords are inconsistent', 'password cannot be empty',
    'Invalid email address', 'This is not a valid Email', 'Email can not be blank',
    'This email already exists in our database, please enter another', 'This is not a valid phone code',
    'This is not a valid email code', 'This is not a valid verify code', 'Please enter the 4-digit verification code',
    'please enter verification code', 'This field is required', 'Too short', 'Too long',
    'Please enter a valid name: only letters - no digits and/or symbols',
    'You must accept all terms and conditions to be able to register.', 'Enter your phone number', 'Enter your email address',
    'Required', 'Should be at least {1} characters long.', 'Should be less than {1} characters long.',
    'Min withdraw is {1}', 'Max withdraw is {1}', 'Min deposit is {1}', 'Max deposit is {1}', 'Min amount is {1}',
    'Max amount is {1}', 'Value {1} is not valid.', "fields don't match.", 'TC Identity Number is incorrect',
    'This is not a valid invite code',
  ];
  it.each(TEXTS)('%s', (text) => {
    expect(Object.values(eng).filter((v) => v === text)).toHaveLength(1);
  });
});

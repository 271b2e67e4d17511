import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api';
import { makeTranslator } from '../i18n/translate';
import { readSkin } from '../../test/skins';
import { payError, payMessage } from './api';

const LANGS = ['eng', 'zhh', 'tha'] as const;
const t = Object.fromEntries(LANGS.map((l) => [l, makeTranslator(readSkin(`languages/${l}.json`), l)]));

/** What the server answers (commands/src/payments, domain/src/payment): code and English msg. */
const REFUSALS: Array<[number, string]> = [
  [20003, 'Min deposit is 50.00'],
  [20003, 'Min withdraw is 100.00'],
  [20004, 'Max deposit is 50000.00'],
  [20004, 'Max withdraw is 50000.00'],
  [-30401, 'Please set a fund password first'],
  [-30402, 'Wrong fund password'],
  [-30403, 'Please bind a bank card or USDT address first'],
  [-30404, 'Special general agents cannot withdraw'],
  [-30405, 'You can withdraw 3 times a day'],
  [-30406, 'The withdrawal cannot do that now (only an approved one is paid)'],
  [-30407, 'Unknown withdrawal'],
  [-30408, 'A pending withdrawal cannot be cancelled here'],
  [-30409, 'Too many wrong fund passwords, please try again in 900 seconds'],
  [-30501, 'Invalid bank card number (16 to 19 digits, not starting with 0)'],
  [-30501, 'Invalid bank card number (10 to 18 digits)'],
  [-30502, 'The card holder must be your real name'],
  [-30503, 'You can bind at most 5'],
  [-30504, 'This account cannot be bound, please contact customer service'],
  [-30505, 'This account is already bound'],
  [-30506, 'Please set your real name first'],
  [-30507, 'This is not a valid TRC20 address'],
  [-30508, 'Please choose a bank'],
  [-30601, 'No usdt deposits in THB'],
  [-30602, 'Unknown deposit order'],
  [-30603, 'The order cannot do that now (only an open order is cancelled)'],
  [-30604, 'Choose TRC20 or ERC20'],
  [-30605, 'The quote has expired'],
  [-30606, 'Too many unpaid deposit orders: pay or cancel one first'],
];

const refusal = (code: number, msg: string) => new ApiError(code, { serverMsg: msg });

describe('payment refusals in the member language (spec 001 section 8, docs/payments.md)', () => {
  it.each(LANGS)('every code 20003, 20004 and -30401 ... -30606 has a text of the %s file, never the key or the server text', (lang) => {
    for (const [code, msg] of REFUSALS) {
      const message = payMessage(code, msg);
      expect(message, `${code} ${msg}`).not.toBeNull();
      const text = payError(t[lang]!, refusal(code, msg));
      expect(text, `${lang} ${code}`).toBe(t[lang]!(message!.key, ...message!.args));
      expect(text, `${lang} ${code}`).not.toBe(message!.key);
      expect(text, `${lang} ${code}`).not.toMatch(/\{\d\}/);
      if (lang !== 'eng') expect(text, `${lang} ${code}`).not.toBe(msg);
    }
  });

  it('keeps the figure the server names: the limit, the daily count, the wait, the card rule, the chain', () => {
    const zhh = t.zhh!;
    expect(payError(zhh, refusal(20003, 'Min deposit is 50.00'))).toBe('最低存款50.00');
    expect(payError(zhh, refusal(20004, 'Max withdraw is 50000.00'))).toBe('最高提款50000.00');
    expect(payError(t.eng!, refusal(20003, 'Min withdraw is 100.00'))).toBe('Min withdraw is 100.00');
    expect(payError(zhh, refusal(-30405, 'You can withdraw 3 times a day'))).toBe('每天最多可提款3次');
    expect(payError(t.tha!, refusal(-30409, 'Too many wrong fund passwords, please try again in 900 seconds'))).toContain('900');
    expect(payError(zhh, refusal(-30501, 'Invalid bank card number (16 to 19 digits, not starting with 0)'))).toBe('银行卡号无效（16至19位数字，不能以0开头）');
    expect(payError(t.eng!, refusal(-30501, 'Invalid bank card number (10 to 18 digits)'))).toBe('Invalid bank card number (10 to 18 digits)');
    expect(payError(zhh, refusal(-30507, 'This is not a valid ERC20 address'))).toBe('这不是有效的ERC20地址');
  });

  it('reads 20003 / 20004 without a known limit as the catalogue text', () => {
    expect(payMessage(20003, '')).toEqual({ key: 'error.20003', args: [] });
    expect(payError(t.zhh!, refusal(20004, 'odd'))).toBe(t.zhh!('error.20004'));
  });

  it('other codes read as the catalogue, then the server text, then Unknown error (N)', () => {
    expect(payError(t.zhh!, refusal(1109, 'Wrong amount'))).toBe(t.zhh!('error.1109'));
    expect(payError(t.zhh!, refusal(-66666, 'Please wait 3 seconds'))).toBe('Please wait 3 seconds');
    expect(payError(t.eng!, refusal(-39999, ''))).toBe('Unknown error (-39999)');
  });
});

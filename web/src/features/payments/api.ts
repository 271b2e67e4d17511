/** The payment calls of the main API (docs/payments.md). */
import { ApiError, apiPost } from '../../api';
import type { Message } from '../../api/errors';
import type { Translate } from '../i18n/translate';

export interface Order {
  orderid: string; kind: 'deposit' | 'withdrawal'; channel: string; currency: string; amount: string;
  credited_amount: string; status: string; flagged: boolean; note: string; created: number; updated: number;
  detail: Record<string, unknown>;
}
export interface Account { id: string; kind: string; bank_name: string; masked: string; holder: string }
export interface Movement {
  wallet: string; sequence: number; currency: string; reference: string; kind: string; amount: string;
  balance_after: string; frozen_after: string; time: number;
}
export interface Channels {
  currency: string; channels: Array<{ channel: string; min: string; max: string }>; quick_amounts: string[];
  chains: Array<{ chain: string; confirmations: number }>;
  bank: { bank_name: string; account: string; holder: string };
}
export interface CreatedOrder {
  orderid: string; pay_url: string; amount: string; currency: string; expires: number; channel: string;
  bank?: { bank_name: string; account: string; holder: string; reference: string };
  usdt?: { chain: string; address: string; rate: string; usdt_amount: string; quote_expires: number; confirmations: number };
}

export const payApi = {
  channels: () => apiPost<Channels>('emaildeposit/channels'),
  deposit: (channel: string, amount: string, chain?: string) =>
    apiPost<CreatedOrder>(
      channel === 'bank' ? 'emaildeposit/bankchongzhi' : channel === 'usdt' ? 'emaildeposit/virtualchongzhi' : 'emaildeposit/chongzhi',
      { amount, ...(chain ? { chain } : {}) },
    ),
  rate: (amount: string) => apiPost<{ rate: string; usdt_amount: string | null; expires: number; currency: string }>(
    'emaildeposit/GetVirtualExchangeRate', { amount }),
  confirmOrder: (orderid: string) => apiPost('emaildeposit/confirmorder', { orderid }),
  cancelOrder: (orderid: string) => apiPost('emaildeposit/cancelorder', { orderid }),
  frame: (orderid: string) => apiPost<{ url: string }>('emaildeposit/newframe', { orderid }),
  cards: () => apiPost<{ list: Account[]; max: number }>('security/userbankinfo'),
  usdtAddresses: () => apiPost<{ list: Account[]; max: number }>('security/uservirtualbankinfo'),
  addCard: (p: { bank_name: string; card_number: string; holder: string; fundpass: string }) => apiPost<Account>('security/adduserbank', p),
  addUsdt: (p: { chain: string; address: string; fundpass: string }) => apiPost<Account>('security/addvirtualbank', p),
  withdraw: (p: { amount: string; bank_id: string; fundpass: string }) =>
    apiPost<{ orderid: string; amount: string; currency: string }>('security/platwithdraw', p),
  cancelWithdraw: (orderid: string) => apiPost('security/cancelwithdraw', { orderid }),
  deleteWithdraw: (orderid: string) => apiPost('security/delwithdraw', { orderid }),
  transfer: (from: string, to: string, amount: string) => apiPost('security/transwalletmoney', { from, to, amount }),
  gameBalances: () => apiPost<{ list: Array<{ provider: string; balance: string; currency: string }> }>('user/getthirdbalance'),
  orders: (path: string, params: Record<string, string | number>) =>
    apiPost<{ list: Order[]; total: number }>(path, params),
  changes: (params: Record<string, string | number>) => apiPost<{ list: Movement[]; total: number }>('report/accountchanges', params),
  flow: () => apiPost<{ currency: string; required: string; done: string; remaining: string; turnover: string;
    list: Array<{ reference: string; kind: string; amount: string; required: string; done: string; complete: boolean; time: number }> }>(
    'report/withdrawbetlistv2'),
  memberReport: (params: Record<string, string>) => apiPost<Record<string, string>>('report/memberreport', params),
  userCentre: () => apiPost<{ today: Record<string, string>; month: Record<string, string>; open_orders: Order[] }>('report/usercenter'),
  balance: () => apiPost<{ balance: string; frozen_balance: string; currency: string }>('user/getbalance'),
};

/**
 * Payment refusals whose text carries a figure (docs/payments.md): how to read it from the
 * server's English `msg`, so the language file's text can name it too.
 */
const FIGURES: Record<number, RegExp> = {
  [-30405]: /(\d+) times/, // 'You can withdraw 3 times a day'
  [-30409]: /in (\d+) seconds/, // 'Too many wrong fund passwords, please try again in 900 seconds'
  [-30501]: /(\d+) to (\d+) digits/, // 'Invalid bank card number (16 to 19 digits, not starting with 0)'
  [-30507]: /valid (\w+) address/, // 'This is not a valid TRC20 address'
};

/**
 * The language-file message of a payment refusal, or null when the code has none. 20003 and
 * 20004 ('Min deposit is 50.00', 'Max withdraw is 50000.00') read as the spec's amount rules
 * with the server's limit; a code whose figure cannot be read has no message here.
 */
export function payMessage(status: number, serverMsg = ''): Message | null {
  if (status === 20003 || status === 20004) {
    const m = /^(Min|Max) (deposit|withdraw) is (\S+)$/.exec(serverMsg.trim());
    return m ? { key: `validation.${m[1]!.toLowerCase()}_${m[2]}`, args: [m[3]!] } : { key: `error.${status}`, args: [] };
  }
  const figure = FIGURES[status];
  if (!figure) return { key: `pay.error.${status}`, args: [] };
  const found = figure.exec(serverMsg);
  if (!found) return null;
  const key = status === -30501 && /starting with 0/.test(serverMsg) ? 'pay.error.-30501_lead' : `pay.error.${status}`;
  return { key, args: found.slice(1) };
}

/**
 * A refusal as the member reads it: the language file's text for a payment code, else the
 * catalogue's (1109 Wrong amount, 12 Not logged in ...), else the server's own text (the codes
 * whose `msg` is meant for the member, and codes the catalogue does not know).
 */
export function payError(t: Translate, err: unknown): string {
  if (err instanceof ApiError) {
    for (const message of [payMessage(err.status, err.serverMsg), err.i18n]) {
      if (!message?.key || message.key === 'error.unknown') continue;
      const text = t(message.key, ...message.args);
      if (text !== message.key) return text;
    }
    return err.serverMsg || t(err.i18n.key, ...err.i18n.args) || err.msg;
  }
  return err instanceof Error ? err.message : String(err);
}

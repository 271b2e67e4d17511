/** The payment calls of the main API (docs/payments.md). */
import { ApiError, apiPost } from '../../api';
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

/** A refusal as the member reads it: the language file's text for the code, else the server's. */
export function payError(t: Translate, err: unknown): string {
  if (err instanceof ApiError) {
    const key = `pay.error.${err.status}`;
    const text = t(key);
    if (text !== key) return text;
    return err.serverMsg || err.msg;
  }
  return err instanceof Error ? err.message : String(err);
}

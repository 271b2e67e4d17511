import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { formatMoney } from '../../shared/money';

export const selectBalanceSession = (state: RootState) => state.balance.session;
export const selectBalanceLoading = (state: RootState) => state.balance.loading;
const selectBalanceInfo = (state: RootState) => state.balance.info;

/** What the header shows: formatted strings only, no arithmetic. */
export const selectBalanceView = createSelector([selectBalanceInfo], (info) =>
  info
    ? {
        amount: formatMoney(info.balance),
        bonus: formatMoney(info.bonus_balance),
        currency: info.currency,
      }
    : null,
);

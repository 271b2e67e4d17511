import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { selectLoggedIn } from '../session/selectors';
import {
  SINGLE, SYSTEM, betCount, betterOdds, blockingMessage, hasSp, isSp, possibleWin, quickAmounts, systemCombinations, systemOptions, totalOdds,
  type BetType,
} from './calc';

export const selectBetslip = (state: RootState) => state.betslip;
export const selectSlipCount = (state: RootState) => state.betslip.events.length;
export const selectSlipOpen = (state: RootState) => state.betslip.open;
export const selectBetSuccess = (state: RootState) => state.betslip.success;

/** The balance a stake is checked against (null when unknown or a visitor). */
export const selectStakeBalance = (state: RootState): number | null => {
  const info = state.balance.info;
  return info ? Number(info.balance) : null;
};

export const selectCurrency = (state: RootState) =>
  state.balance.info?.currency ?? state.session.profile?.currency_name ?? state.config.conf?.default_currency ?? 'CNY';

/** Everything the betslip view derives: counts, odds, possible win and the blocking message. */
export const selectSlipView = createSelector(
  [selectBetslip, selectLoggedIn, selectStakeBalance, selectCurrency],
  (slip, loggedIn, balance, currency) => {
    const count = slip.events.length;
    const options = systemOptions(count, slip.bankerBetsCount);
    const stake = slip.freeBet ? (slip.selectedFreeBetAmount ?? '') : slip.stake;
    const first = slip.events[0];
    const offered = slip.type === SINGLE && slip.betterOddSelectionMode && first && !isSp(first) ? betterOdds(first.price) : null;
    // a pick at SP: the odds are known only at the off
    const sp = hasSp(slip.events);
    const odds = slip.type === SYSTEM || sp ? null : totalOdds(slip.events.map((e) => Number(e.price)));
    const message = blockingMessage({ type: slip.type, events: slip.events, stake, loggedIn, balance, freeBet: slip.freeBet });
    return {
      count,
      type: slip.type as BetType,
      systemOptions: options.map((k) => ({ k, n: count - slip.bankerBetsCount, combos: systemCombinations(count, slip.bankerBetsCount, k) })),
      bets: betCount(slip.type, count, slip.bankerBetsCount, slip.sysOptionValue),
      /** null: not shown (system) or unknown (an SP pick, see `sp`). */
      totalOdds: offered ?? odds,
      sp,
      offeredPrice: offered,
      possibleWin: possibleWin({
        type: slip.type, events: slip.events, stake, eachWay: slip.eachWayMode, sysK: slip.sysOptionValue, offeredPrice: offered,
      }),
      eachWayAvailable: count > 0 && slip.events.every((e) => e.ewAllowed),
      message,
      canPlace: message === null && slip.betState !== 'loading',
      quickAmounts: quickAmounts(currency),
      currency,
      loggedIn,
    };
  },
);

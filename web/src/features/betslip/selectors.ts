import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { selectLoggedIn } from '../session/selectors';
import {
  SINGLE, betCount, blockingMessage, figuresOf, hasSp, isSp, quickAmounts, systemCombinations, systemOptions, type BetType,
} from './calc';

export const selectBetslip = (state: RootState) => state.betslip;
export const selectSlipCount = (state: RootState) => state.betslip.events.length;
export const selectSlipOpen = (state: RootState) => state.betslip.open;
export const selectBetSuccess = (state: RootState) => state.betslip.success;

/** The balance a stake is checked against (null when unknown or a visitor). */
export const selectStakeBalance = (state: RootState): string | null => {
  const info = state.balance.info;
  return info ? String(info.balance) : null;
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
    const offer = slip.type === SINGLE && slip.betterOddSelectionMode && Boolean(first) && !isSp(first!);
    // a pick at SP: the odds are known only at the off
    const sp = hasSp(slip.events);
    const figures = figuresOf({ type: slip.type, events: slip.events, stake, eachWay: slip.eachWayMode, sysK: slip.sysOptionValue, offered: offer });
    const message = blockingMessage({
      type: slip.type, events: slip.events, stake, loggedIn, balance, freeBet: slip.freeBet, sysK: slip.sysOptionValue, eachWay: slip.eachWayMode,
    });
    return {
      count,
      type: slip.type as BetType,
      systemOptions: options.map((k) => ({ k, n: count - slip.bankerBetsCount, combos: systemCombinations(count, slip.bankerBetsCount, k) })),
      bets: betCount(slip.type, count, slip.bankerBetsCount, slip.sysOptionValue),
      /** null: not shown (system, chain) or unknown (an SP pick, see `sp`). A decimal string at 3 places. */
      totalOdds: figures.odds,
      sp,
      offeredPrice: figures.offered,
      /** Money string; null with an SP pick. */
      possibleWin: figures.possibleWin,
      /** Stake per line and what the bet charges (line stake x lines, the server's rounding). */
      unitStake: figures.unitStake,
      charged: figures.stake,
      lines: figures.lines,
      eachWayAvailable: count > 0 && slip.events.every((e) => e.ewAllowed),
      message,
      canPlace: message === null && slip.betState !== 'loading',
      quickAmounts: quickAmounts(currency),
      currency,
      loggedIn,
    };
  },
);

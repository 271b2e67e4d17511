import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { autoBounds, partialBounds, type Bounds, type CashoutPhase } from './calc';

export const selectCashout = (state: RootState) => state.cashout;

/** The dialog's state: done, then not cashable, then loading, then the rule (auto way), else normal. */
export function cashoutPhase(s: RootState['cashout']): CashoutPhase {
  if (!s.bet) return 'closed';
  if (s.done) return 'done';
  if (s.notAvailable) return 'notCashable';
  if (s.amount === null) return s.calc === 'ready' ? 'notCashable' : s.calc === 'error' ? 'error' : 'loading';
  if (s.way === 'auto' && s.rule) return 'ruleActive';
  return 'normal';
}

export const selectCashoutView = createSelector([selectCashout], (s) => {
  const phase = cashoutPhase(s);
  const current = s.amount ?? 0;
  const partial: Bounds = partialBounds(current);
  const auto: Bounds = autoBounds(current, s.bet?.possibleWin ?? 0);
  return { phase, partial, auto, autoPossible: auto.min <= auto.max };
});

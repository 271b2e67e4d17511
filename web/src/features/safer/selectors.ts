import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { limitRows, restrictionOf } from './model';
import { selectSafer, type SaferAction } from './saferSlice';

export const selectSettings = (s: RootState) => selectSafer(s).settings;
export const selectSaferAction = (s: RootState) => selectSafer(s).action;

/** Kinds by periods, with the limit of each or null. */
export const selectLimitRows = createSelector([selectSettings], (settings) => limitRows(settings?.limits ?? []));

/** The running self-exclusion or time-out at `nowMs`. */
export const selectRestriction = createSelector(
  [selectSettings, (_s: RootState, nowMs: number) => nowMs],
  (settings, nowMs) => restrictionOf(settings, nowMs),
);

/** The outcome of the last change when it was one of `names` (the section that shows it). */
export const selectOutcomeOf = (names: readonly SaferAction[]) => createSelector([selectSaferAction], (action) =>
  action.name && names.includes(action.name) ? action : null);

/** A change is under way (every form waits for it). */
export const selectBusy = (s: RootState) => selectSafer(s).action.status === 'pending';

import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { makeTranslator } from './translate';

export const selectLanguage = (state: RootState) => state.i18n.lang;
export const selectI18nStatus = (state: RootState) => state.i18n.status;
export const selectI18nError = (state: RootState) => state.i18n.error;
const selectStrings = (state: RootState) => state.i18n.strings;

export const selectTranslate = createSelector([selectStrings], makeTranslator);

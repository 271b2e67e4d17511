import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { createI18n, fromI18next } from './translate';

export const selectLanguage = (state: RootState) => state.i18n.lang;
export const selectI18nStatus = (state: RootState) => state.i18n.status;
export const selectI18nError = (state: RootState) => state.i18n.error;
const selectStrings = (state: RootState) => state.i18n.strings;

/** The i18next instance of the loaded language (a new one when a language file arrives). */
export const selectI18n = createSelector([selectStrings, selectLanguage], createI18n);
export const selectTranslate = createSelector([selectI18n], (i18n) => fromI18next(i18n.t));

import { createSelector } from '@reduxjs/toolkit';
import type { RootState } from '../../app/store';
import { currentEngine, i18nFor, makeTranslator } from './translate';

export const selectLanguage = (state: RootState) => state.i18n.lang;
export const selectI18nStatus = (state: RootState) => state.i18n.status;
export const selectI18nError = (state: RootState) => state.i18n.error;
const selectStrings = (state: RootState) => state.i18n.strings;

/** The i18next instance of the loaded language (a new one per language file); null until the engine chunk has arrived. */
export const selectI18n = createSelector([selectStrings, selectLanguage, currentEngine], i18nFor);
/** A translator outside React (and for the boot screens, before the engine). */
export const selectTranslate = createSelector([selectStrings, selectLanguage, currentEngine], (strings, lang) => makeTranslator(strings, lang));

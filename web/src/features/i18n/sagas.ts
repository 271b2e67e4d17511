import { call, put, takeLatest } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { ApiError, CLIENT_CODES, getJson, setTransportLanguage, toErrorInfo } from '../../api';
import { i18nActions, type Strings } from './i18nSlice';

export const LANGUAGE_STORAGE_KEY = 'lang';
export const languageUrl = (lang: string) => `/skins/languages/${encodeURIComponent(lang)}.json`;

function assertStrings(value: unknown): asserts value is Strings {
  const ok =
    typeof value === 'object' && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string');
  if (!ok) throw new ApiError(CLIENT_CODES.BAD_RESPONSE);
}

/** BCP 47 tags of the skin's language codes, for <html lang> (fonts, screen readers). */
const HTML_LANG: Record<string, string> = { zhh: 'zh-Hans', eng: 'en', tha: 'th' };

function setDocumentLanguage(lang: string) {
  document.documentElement.lang = HTML_LANG[lang] ?? lang;
}

export function* loadLanguage(action: PayloadAction<string>): SagaIterator {
  const lang = action.payload;
  try {
    const strings: unknown = yield call(getJson, languageUrl(lang), { envelope: false });
    assertStrings(strings);
    yield call(setDocumentLanguage, lang);
    yield call(setTransportLanguage, lang);
    yield put(i18nActions.loaded({ lang, strings }));
  } catch (err) {
    yield put(i18nActions.failed(toErrorInfo(err)));
  }
}

export function* i18nSaga(): SagaIterator {
  yield takeLatest(i18nActions.loadRequested.type, loadLanguage);
}

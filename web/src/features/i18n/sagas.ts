import { all, call, delay, fork, put, select, takeLatest } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { ApiError, CLIENT_CODES, getJson, setTransportLanguage, toErrorInfo } from '../../api';
import type { RootState } from '../../app/store';
import { setDisplayLanguage } from '../../shared/time';
import { storedLanguage } from './detector';
import { i18nActions, type Strings } from './i18nSlice';
import { loadEngine, localeTag } from './translate';

export { LANGUAGE_STORAGE_KEY } from './detector';
export const languageUrl = (lang: string) => `/skins/languages/${encodeURIComponent(lang)}.json`;

function assertStrings(value: unknown): asserts value is Strings {
  const ok =
    typeof value === 'object' && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string');
  if (!ok) throw new ApiError(CLIENT_CODES.BAD_RESPONSE);
}

/** <html lang> in BCP 47 (fonts, screen readers). */
function setDocumentLanguage(lang: string) {
  document.documentElement.lang = localeTag(lang);
}

/** Loads one language file, on demand (lazily: only the language in use is fetched). */
export function* loadLanguage(action: PayloadAction<string>): SagaIterator {
  const lang = action.payload;
  try {
    // the file and the i18next chunk together (the chunk is usually in already: preloaded at boot), then
    // the client's additions through the chunk
    const [file, engine]: [unknown, Awaited<ReturnType<typeof loadEngine>>] = yield all([
      call(getJson, languageUrl(lang), { envelope: false }), call(loadEngine),
    ]);
    assertStrings(file);
    const additions: Strings = yield call(engine.loadAdditions, lang);
    // the additions sit under the file: a key the skin's file has wins (features/i18n/additions.ts)
    const strings: Strings = { ...additions, ...file };
    yield call(setDocumentLanguage, lang);
    yield call(setTransportLanguage, lang);
    yield call(setDisplayLanguage, lang);
    yield put(i18nActions.loaded({ lang, strings }));
  } catch (err) {
    yield put(i18nActions.failed(toErrorInfo(err)));
  }
}

/** Language change reload (spec 000 section 9). */
export const LANGUAGE_RELOAD_MS = 500;

export interface SwitchDeps {
  remember: (lang: string) => void;
  reload: () => void;
}
export const defaultSwitchDeps: SwitchDeps = {
  remember: (lang) => storedLanguage.cacheUserLanguage?.(lang),
  reload: () => window.location.reload(),
};

/** The switcher: the choice is stored under `lang` (read at boot), then the page reloads 500 ms later. */
export function* switchLanguage(deps: SwitchDeps, action: PayloadAction<string>): SagaIterator {
  const lang = action.payload;
  const current: string | null = yield select((s: RootState) => s.i18n.lang);
  const offered: string[] = yield select((s: RootState) => s.config.conf?.languages ?? []);
  if (lang === current || !offered.includes(lang)) {
    yield put(i18nActions.switchDropped());
    return;
  }
  yield call(deps.remember, lang);
  yield delay(LANGUAGE_RELOAD_MS);
  yield call(deps.reload);
}

/** Starts the i18next chunk at boot, beside the configuration request. */
function* preloadEngine(): SagaIterator {
  try {
    yield call(loadEngine);
  } catch {
    // loadLanguage asks again, and reports the failure
  }
}

export function* i18nSaga(switchDeps: SwitchDeps = defaultSwitchDeps): SagaIterator {
  yield fork(preloadEngine);
  yield takeLatest(i18nActions.loadRequested.type, loadLanguage);
  yield takeLatest(i18nActions.switchRequested.type, switchLanguage, switchDeps);
}

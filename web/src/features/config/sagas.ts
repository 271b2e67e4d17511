import { call, put, takeLatest } from 'redux-saga/effects';
import type { SagaIterator } from 'redux-saga';
import { ApiError, CLIENT_CODES, configureTransport, ensureAppToken, getJson, toErrorInfo } from '../../api';
import { i18nActions } from '../i18n/i18nSlice';
import { detectStoredLanguage } from '../i18n/detector';
import { configActions } from './configSlice';
import type { SiteConfig } from './types';

export const CONFIG_URL = '/skins/conf.json';

function assertConfig(value: unknown): asserts value is SiteConfig {
  const c = value as Partial<SiteConfig> | null;
  const ok =
    typeof c === 'object' && c !== null &&
    typeof c.default_language === 'string' && Array.isArray(c.languages) &&
    Array.isArray(c.main_menu_order) && Array.isArray(c.transport_pairs) && c.transport_pairs.length > 0;
  if (!ok) throw new ApiError(CLIENT_CODES.BAD_RESPONSE);
}

/** The stored `lang` (the i18next detector of features/i18n/detector.ts). */
const readStoredLanguage = detectStoredLanguage;

/** The saved choice when the skin offers it, otherwise the skin's default. */
export function pickLanguage(conf: SiteConfig, stored: string | null): string {
  return stored && conf.languages.includes(stored) ? stored : conf.default_language;
}

/**
 * Boot: the skin configuration, then the API token (webKey) through the request
 * layer it configures, then the language file. The app is ready after all three.
 */
export function* loadConfig(): SagaIterator {
  let conf: SiteConfig;
  try {
    const body: unknown = yield call(getJson, CONFIG_URL, { envelope: false });
    assertConfig(body);
    conf = body;
    yield call(configureTransport, {
      pairs: conf.transport_pairs,
      ...(conf.slow_response_ms > 0 ? { slowMs: conf.slow_response_ms } : {}),
    });
    yield call(ensureAppToken);
  } catch (err) {
    yield put(configActions.failed(toErrorInfo(err)));
    return;
  }
  yield put(configActions.loaded(conf));
  const stored: string | null = yield call(readStoredLanguage);
  yield put(i18nActions.loadRequested(pickLanguage(conf, stored)));
}

export function* configSaga(): SagaIterator {
  yield takeLatest(configActions.loadRequested.type, loadConfig);
}

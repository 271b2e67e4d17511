import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch } from '../../test/fetchMock';
import { startSaga } from '../../test/runSaga';
import { readLanguage, readSkin } from '../../test/skins';
import { loadAdditions } from './additions';
import { BOOT_STRINGS } from './bootStrings';
import { i18nActions } from './i18nSlice';
import { languageUrl, loadLanguage } from './sagas';
import { detectStoredLanguage, storedLanguage } from './detector';
import { createI18n } from './engine';
import { makeTranslator } from './translate';

const LANGS = ['eng', 'zhh', 'tha'];
const files = Object.fromEntries(LANGS.map((l) => [l, readSkin(`languages/${l}.json`)]));
/** As the client loads them: with the client's additions (./strings) under each file. */
const loaded = Object.fromEntries(LANGS.map((l) => [l, readLanguage(l)]));

afterEach(() => vi.unstubAllGlobals());

describe('language files', () => {
  it.each(LANGS)('%s has exactly the keys of eng.json', (lang) => {
    expect(Object.keys(files[lang]!).sort()).toEqual(Object.keys(files.eng!).sort());
  });

  it('covers every boot string with the same English text', () => {
    for (const [key, text] of Object.entries(BOOT_STRINGS)) expect(loaded.eng![key], key).toBe(text);
  });

  it('has the texts the spec names', () => {
    const values = Object.values(files.eng!);
    for (const text of ['Unknown error ({1})', 'Insufficient balance.', 'Network request failed', 'Page not found', 'No Data'])
      expect(values).toContain(text);
  });

  it('keeps every placeholder in translation', () => {
    for (const lang of LANGS)
      for (const [key, text] of Object.entries<string>(files.eng!))
        expect(files[lang]![key]!.match(/\{\d+\}/g) ?? [], `${lang} ${key}`).toEqual(text.match(/\{\d+\}/g) ?? []);
  });
});

describe("the client's additions to the language files", () => {
  it.each(LANGS)('%s has exactly the keys of eng, none of them already in the skin file', async (lang) => {
    const [eng, own] = await Promise.all([loadAdditions('eng'), loadAdditions(lang)]);
    expect(Object.keys(own).sort()).toEqual(Object.keys(eng).sort());
    expect(Object.keys(own).filter((k) => k in files[lang]!)).toEqual([]);
    for (const [key, text] of Object.entries(eng)) {
      expect(own[key], `${lang} ${key}`).toBeTruthy();
      // the same placeholders, in the order the language puts them
      expect((own[key]!.match(/\{\d+\}/g) ?? []).sort(), `${lang} ${key}`).toEqual((text.match(/\{\d+\}/g) ?? []).sort());
    }
  });

  it('load for a language that has them, and nothing for one that has none', async () => {
    expect(Object.keys(await loadAdditions('tha')).length).toBeGreaterThan(0);
    expect(await loadAdditions('xxx')).toEqual({});
  });
});

describe('translator', () => {
  it('looks up, fills placeholders and falls back to boot strings, then the key', () => {
    const t = makeTranslator({ 'error.unknown': '未知错误（{1}）' });
    expect(t('error.unknown', 7)).toBe('未知错误（7）');
    expect(t('boot.error.retry')).toBe('Retry');
    expect(t('no.such.key')).toBe('no.such.key');
  });
});

describe('translator on i18next', () => {
  it('fills the spec placeholders by position, keeps one without an argument, and never re-reads an argument', () => {
    const t = makeTranslator({ order: '{2} then {1} then {3}', echo: 'Hello {1}' }, 'eng');
    expect(t('order', 'a', 'b')).toBe('b then a then {3}');
    expect(t('echo', '{2}')).toBe('Hello {2}');
    expect(t('echo', '<b>')).toBe('Hello <b>'); // React escapes; no HTML escaping twice
  });

  it('picks the plural form by the language rules when a key has them (count: the first number)', () => {
    const eng = makeTranslator({ 'bets_one': '{1} bet', 'bets_other': '{1} bets', plain: '{1} selections' }, 'eng');
    expect(eng('bets', 1)).toBe('1 bet');
    expect(eng('bets', 3)).toBe('3 bets');
    expect(eng('plain', 1)).toBe('1 selections'); // no plural forms: the key as written
    const zhh = makeTranslator({ 'bets_other': '{1} 注' }, 'zhh');
    expect(zhh('bets', 1)).toBe('1 注'); // Chinese has one form
    const tha = makeTranslator({ 'bets_other': '{1} เดิมพัน' }, 'tha');
    expect(tha('bets', 2)).toBe('2 เดิมพัน');
  });

  it('runs each language under its BCP 47 tag with the boot strings as fallback', () => {
    const i18n = createI18n(files.tha!, 'tha');
    expect(i18n.language).toBe('th');
    expect(i18n.t('lang.tha')).toBe('ไทย');
    expect(createI18n({}, null).t('boot.error.retry')).toBe('Retry');
  });

  it('detects the stored language (localStorage lang) and caches a choice there', () => {
    localStorage.removeItem('lang');
    expect(detectStoredLanguage()).toBeNull();
    storedLanguage.cacheUserLanguage!('tha');
    expect(localStorage.getItem('lang')).toBe('tha');
    expect(detectStoredLanguage()).toBe('tha');
    localStorage.removeItem('lang');
  });
});

describe('loadLanguage saga', () => {
  it('loads a language file', async () => {
    mockFetch({ [languageUrl('eng')]: () => json({ a: 'b', 'rg.title': 'Skin title' }) });
    const run = startSaga(loadLanguage, i18nActions.loadRequested('eng'));
    await run.task.toPromise();
    const strings = { ...(await loadAdditions('eng')), a: 'b', 'rg.title': 'Skin title' };
    expect(run.dispatched).toEqual([i18nActions.loaded({ lang: 'eng', strings })]);
  });

  it('fails on a missing file or a malformed one', async () => {
    mockFetch({ [languageUrl('bad')]: () => json({ a: 1 }) });
    const missing = startSaga(loadLanguage, i18nActions.loadRequested('xxx'));
    const bad = startSaga(loadLanguage, i18nActions.loadRequested('bad'));
    await Promise.all([missing.task.toPromise(), bad.task.toPromise()]);
    expect(missing.dispatched[0]).toMatchObject({ type: i18nActions.failed.type, payload: { httpStatus: 404 } });
    expect(bad.dispatched[0]).toMatchObject({ type: i18nActions.failed.type, payload: { msg: 'Invalid server response' } });
  });
});

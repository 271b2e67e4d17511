import { describe, expect, it } from 'vitest';
import eng from '../../../config/skins/languages/eng.json';
import tha from '../../../config/skins/languages/tha.json';
import zhh from '../../../config/skins/languages/zhh.json';
import { readLanguage } from '../test/skins';
import { SAFER_REFUSALS } from '../features/safer/refusals';
import { ENGLISH_FALLBACK, NAMED_ERRORS, messageForCode, messageForFailure, messageForName, messageForRefusal } from './errors';
import { SwarmError } from './swarm';
import { ApiError } from './http';

const FILES: Record<string, Record<string, string>> = { eng, zhh, tha };
/** The languages as the client loads them (the skin's file and the client's additions). */
const LOADED: Record<string, Record<string, string>> = { eng: readLanguage('eng'), zhh: readLanguage('zhh'), tha: readLanguage('tha') };

describe('the error catalogue of spec 000 section 8', () => {
  it('maps the codes the client did not map before, each with its text in all three languages', () => {
    for (const code of [1550, 1560, 2406, 2428, 20003, 20004, 20007, 1907, 1908, 1909, 1913, 1914]) {
      const { key } = messageForCode(code);
      expect(key, String(code)).not.toBe('error.unknown');
      for (const [lang, file] of Object.entries(LOADED)) expect(file[key], `${lang} ${key}`).toBeTruthy();
    }
    expect(ENGLISH_FALLBACK[messageForCode(1550).key]).toBe('The stake is above the maximum');
  });

  it('reads the responsible gambling refusals apart, in all three languages (DESIGN.md "Responsible gambling")', () => {
    const codes = [2406, 2428, 2431, 2432, 2433, 2434];
    const keys = codes.map((code) => messageForCode(code).key);
    expect(new Set(keys).size).toBe(codes.length); // a time-out is not a self-exclusion, a deposit limit not a stake limit
    for (const code of codes) expect(SAFER_REFUSALS.has(code), String(code)).toBe(true);
    for (const key of keys) {
      for (const [lang, file] of Object.entries(LOADED)) expect(file[key], `${lang} ${key}`).toBeTruthy();
    }
    expect(LOADED.eng![messageForCode(2431).key]).toMatch(/deposit limit/);
    expect(LOADED.eng![messageForCode(2428).key]).toMatch(/time-out/);
    expect(new ApiError(2433).i18n).toEqual({ key: 'error.2433', args: [] });
  });

  it('has the named errors with the spec texts', () => {
    expect(eng[NAMED_ERRORS.WEBSOCKET_DISCONNECTED as keyof typeof eng]).toBe('Your connection is lost, please refresh and try again');
    expect(eng[NAMED_ERRORS.EVENT_LOCKED as keyof typeof eng]).toBe('Handicap is locked');
    expect(eng[NAMED_ERRORS.LIMIT_ERROR as keyof typeof eng]).toBe('Odds have been corrected');
    expect(eng[NAMED_ERRORS.ONHOLD as keyof typeof eng]).toBe('Waiting for confirmation');
    for (const name of Object.keys(NAMED_ERRORS) as Array<keyof typeof NAMED_ERRORS>) {
      for (const [lang, file] of Object.entries(FILES)) expect(file[messageForName(name).key], `${lang} ${name}`).toBeTruthy();
    }
  });
});

describe('no raw server or socket text reaches a member', () => {
  it('reads protocol failures as messages of the language files', () => {
    expect(messageForFailure(new SwarmError(3, 'swarm code 3')).key).toBe('error.request_failed');
    expect(messageForFailure(new SwarmError(5, 'session lost')).key).toBe('error.websocket_disconnected');
    expect(messageForFailure(new SwarmError(12, 'not logged in')).key).toBe('error.12');
    expect(messageForFailure(new SwarmError(29, 'too many')).key).toBe('error.too_many_requests');
    expect(messageForFailure(new Error('websocket closed')).key).toBe('error.websocket_disconnected');
    expect(messageForFailure(new Error('answer timeout')).key).toBe('error.websocket_disconnected');
    expect(messageForFailure(new TypeError('Failed to fetch')).key).toBe('error.network');
  });

  it('reads a refusal outside the catalogue as Unknown error (N)', () => {
    expect(messageForRefusal(4242)).toEqual({ key: 'error.unknown', args: [4242] });
    expect(messageForRefusal('1560')).toEqual({ key: 'error.1560', args: [] });
    expect(messageForRefusal('garbage').key).toBe('error.bad_response');
  });
});

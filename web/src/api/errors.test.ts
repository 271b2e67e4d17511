import { describe, expect, it } from 'vitest';
import eng from '../../../config/skins/languages/eng.json';
import tha from '../../../config/skins/languages/tha.json';
import zhh from '../../../config/skins/languages/zhh.json';
import { ENGLISH_FALLBACK, NAMED_ERRORS, messageForCode, messageForFailure, messageForName, messageForRefusal } from './errors';
import { SwarmError } from './swarm';

const FILES: Record<string, Record<string, string>> = { eng, zhh, tha };

describe('the error catalogue of spec 000 section 8', () => {
  it('maps the codes the client did not map before, each with its text in all three languages', () => {
    for (const code of [1550, 1560, 2406, 2428, 20003, 20004, 20007, 1907, 1908, 1909, 1913, 1914]) {
      const { key } = messageForCode(code);
      expect(key, String(code)).not.toBe('error.unknown');
      for (const [lang, file] of Object.entries(FILES)) expect(file[key], `${lang} ${key}`).toBeTruthy();
    }
    expect(ENGLISH_FALLBACK[messageForCode(1550).key]).toBe('The stake is above the maximum');
    expect(messageForCode(2406).key).toBe(messageForCode(2428).key);
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

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from '../../api';
import { startSagaWithState } from '../../test/runSaga';
import { configActions } from '../config/configSlice';
import { SEARCH_DEBOUNCE_MS, minSearchLength, searchGameHref, searchable } from './search';
import { SEARCH_PATH, sportSaga } from './sagas';
import reducer, { ODDS_FORMAT_STORAGE_KEY, sportActions } from './sportSlice';
import type { SiteConfig } from '../config/types';

const GROUPS = [{ name: 'Football', alias: 'Soccer', results: [{ game: { id: 5, type: 1, team1_name: 'Everton', start_ts: 1 }, competition: { name: 'PL' } }] }];

describe('search rules', () => {
  it('needs 4 characters without spaces, 1 in the listed languages', () => {
    expect(minSearchLength('zhh')).toBe(4);
    expect(minSearchLength('eng')).toBe(1);
    expect(searchable('a b c', 'zhh')).toBe(false);
    expect(searchable('ab cd', 'zhh')).toBe(true);
    expect(searchable(' ', 'eng')).toBe(false);
    expect(searchable('e', 'tha')).toBe(true);
  });

  it('links types 0 and 2 to prematch, 1 to live', () => {
    expect(searchGameHref({ id: 3, type: 0 })).toBe('/prematch/game/3');
    expect(searchGameHref({ id: 3, type: 2 })).toBe('/prematch/game/3');
    expect(searchGameHref({ id: 3, type: 1 })).toBe('/live/game/3');
  });
});

describe('search saga', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function run(lang = 'eng') {
    return startSagaWithState((dispatched) => ({
      i18n: { lang },
      sport: dispatched.reduce(reducer, reducer(undefined, { type: 'init' })),
    }), sportSaga);
  }

  it('asks once, 800 ms after the last keystroke', async () => {
    const post = vi.spyOn(api, 'apiPost').mockResolvedValue(GROUPS as never);
    const saga = run();
    for (const term of ['e', 'ev', 'eve', 'ever']) {
      saga.dispatch(sportActions.searchTyped(term));
      saga.dispatched.push(sportActions.searchTyped(term));
      await vi.advanceTimersByTimeAsync(300);
    }
    expect(post).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS - 300);
    expect(post).toHaveBeenCalledTimes(1);
    expect(post).toHaveBeenCalledWith(SEARCH_PATH, { term: 'ever', language: 'eng' });
    expect(saga.types()).toContain(sportActions.searchAnswered.type);
    saga.task.cancel();
  });

  it('hides results below the minimum without asking', async () => {
    const post = vi.spyOn(api, 'apiPost').mockResolvedValue(GROUPS as never);
    const saga = run('zhh');
    saga.dispatch(sportActions.searchTyped('abc'));
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    expect(post).not.toHaveBeenCalled();
    expect(saga.types()).toContain(sportActions.searchCleared.type);
    saga.task.cancel();
  });
});

describe('odds format preference', () => {
  it('defaults to the configured format and keeps a stored choice', () => {
    const conf = { odds_format: 'HongKong' } as SiteConfig;
    expect(reducer(undefined, configActions.loaded(conf)).oddsFormat).toBe('hongkong');
    localStorage.setItem(ODDS_FORMAT_STORAGE_KEY, 'american');
    expect(reducer(undefined, configActions.loaded(conf)).oddsFormat).toBe('american');
  });
});

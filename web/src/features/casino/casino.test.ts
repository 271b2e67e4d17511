import { describe, expect, it } from 'vitest';
import { modesOf, searchReady, type CasinoGame } from './api';
import { matchRoute } from '../../app/router';

const game = (types: Partial<CasinoGame['types']>): CasinoGame => ({
  id: 1, provider: 'demo', name: 'x', front_game_id: 'x', extearnal_game_id: 'x', game_options: '', link: '',
  types: { realMode: 0, viewMode: 0, funMode: 0, ...types }, icon_1: '', icon_2: '', category: 'slots',
  section: 'casino', game_type: '', favorite: 0, demo: true,
});

describe('casino rules', () => {
  it('search needs 1 character in English and Thai, 4 in Chinese, spaces ignored', () => {
    expect(searchReady('a', 'eng')).toBe(true);
    expect(searchReady(' ', 'tha')).toBe(false);
    expect(searchReady('幸运 七', 'zhh')).toBe(false);
    expect(searchReady('幸运七号', 'zhh')).toBe(true);
  });

  it('the chooser offers the modes the game has', () => {
    expect(modesOf(game({ realMode: 1, funMode: 1 }), true)).toEqual(['real', 'fun']);
    expect(modesOf(game({ viewMode: 1 }), false)).toEqual(['view']);
  });

  it('casino paths route to the casino pages', () => {
    const menu = ['prematch', 'casino', 'live-casino'];
    expect(matchRoute('/casino', menu)).toEqual({ page: 'casino', section: 'casino' });
    expect(matchRoute('/live-casino', menu)).toEqual({ page: 'casino', section: 'live-casino' });
    expect(matchRoute('/live-casino', ['prematch'])).toEqual({ page: 'notFound' });
    expect(matchRoute('/thirdparty/8pb', [])).toEqual({ page: 'casino', section: 'thirdparty', type: '8pb' });
    expect(matchRoute('/thirdparty/7', [])).toEqual({ page: 'notFound' });
    expect(matchRoute('/PPSlots', [])).toEqual({ page: 'casino', section: 'ppslots' });
    expect(matchRoute('/catmin', [])).toEqual({ page: 'casino', section: 'catmin' });
    expect(matchRoute('/specialty/4', [])).toEqual({ page: 'casino', section: 'specialty', type: '4' });
  });
});

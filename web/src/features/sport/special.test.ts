import { describe, expect, it } from 'vitest';
import { footerVisible, matchRoute } from '../../app/router';
import { SPECIAL_EVENTS, specialQueries, specialWhere } from './special';

const IDS = { esports: [75], virtual: [300, 301] };

describe('/prematchTokyo: the special prematch event page', () => {
  it('is a sport page without the footer (spec 001 section 2.4)', () => {
    expect(matchRoute('/prematchTokyo', [])).toEqual({ page: 'special', name: 'prematchTokyo' });
    expect(matchRoute('/prematchtokyo', [])).toEqual({ page: 'notFound' });
    expect(footerVisible('/prematchTokyo', false)).toBe(false);
  });

  it("lists the prematch games of the event's regions, without esports and virtual sports", () => {
    const event = SPECIAL_EVENTS.prematchTokyo!;
    expect(specialWhere(event, IDS)).toEqual({
      sport: { id: { '@nin': [75, 300, 301] } }, game: { type: { '@in': [0, 2] } }, region: { alias: { '@in': ['Japan'] } },
    });
    const { menu, list } = specialQueries(event, IDS, 'Soccer');
    expect(menu.what).toEqual({ sport: ['id', 'name', 'alias', 'order'], game: '@count' });
    expect(list!.where).toMatchObject({ sport: { alias: 'Soccer' }, region: { alias: { '@in': ['Japan'] } } });
    expect(specialQueries(event, IDS).list).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { bodyOf, formOf } from './ContentDesk';

describe('content desk forms (docs/content.md)', () => {
  it('a new popup defaults to all, never, active; the body carries numbers and times as the API takes them', () => {
    const form = formOf('popup');
    expect(form).toMatchObject({ audience: 'all', repeat: 'never', active: true, style: 'message', lang: '' });
    const body = bodyOf('popup', { ...form, title: 'Hi', content: 'x', repeat: 'custom', minutes: '15', starts_ms: '2026-06-01T10:00' });
    expect(body).toMatchObject({ title: 'Hi', repeat: 'custom', minutes: 15, active: true, ends_ms: 0 });
    expect(body.starts_ms).toBe(new Date('2026-06-01T10:00').getTime());
  });

  it('a stored cover comes back into the form with its games as JSON, and out again as a list', () => {
    const row = {
      id: 3, kind: 'cover', lang: '', slug: '', title: 'Tonight', sort: 0, active: false, starts_ms: 0, ends_ms: 0, updated_ms: 1, updated_by: 's',
      body: { gameinfo: [{ HomeTeamId: 1, AwayTeamId: 2, HomeTeamName: 'A', AwayTeamName: 'B', MatchStartDateGMT: '2026-06-01 18:00' }] },
    };
    const form = formOf('cover', row);
    expect(form.active).toBe(false);
    expect(bodyOf('cover', form).gameinfo).toEqual(row.body.gameinfo);
    expect(bodyOf('cover', { ...form, gameinfo: 'not json' }).gameinfo).toBe('not json');
  });
});

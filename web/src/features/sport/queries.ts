/**
 * The `get` queries of the sport pages. Each section is a filter on games and sports;
 * lists ask down to the main market, a game page asks everything of one game.
 */
import type { SportSection } from '../../app/router';
import type { SiteConfig } from '../config/types';
import type { SwarmQuery } from '../live/liveSlice';
import { zoneDayRange } from '../../shared/time';
import { MAIN_MARKET_TYPES } from './model';

export const GAME_FIELDS = ['id', 'competition_id', 'type', 'start_ts', 'team1_name', 'team2_name', 'is_blocked', 'info', 'markets_count'];
const MARKET_FIELDS = ['id', 'game_id', 'market_type', 'name', 'base', 'order', 'is_suspended', 'ew_allowed', 'ew_places', 'ew_coeff', 'sp_allowed'];
const EVENT_FIELDS = ['id', 'market_id', 'name', 'type', 'price', 'base', 'is_suspended'];
const SPORT_FIELDS = ['id', 'name', 'alias', 'order'];

export const ESPORTS_DEFAULT = [75];
export const VIRTUAL_DEFAULT = [300, 301];
const PREMATCH_TYPES = { '@in': [0, 2] };

type Where = Record<string, Record<string, unknown>>;

export interface SectionIds {
  esports: number[];
  virtual: number[];
}

export const sectionIds = (conf: SiteConfig | null): SectionIds => ({
  esports: conf?.esports_sport_ids ?? ESPORTS_DEFAULT,
  virtual: conf?.virtual_sport_ids ?? VIRTUAL_DEFAULT,
});

/**
 * Midnight to midnight, in unix seconds (stable for the whole day): of the language's time zone
 * (Asia/Bangkok but for zhh, shared/time.ts) when a language is given, else of the device.
 */
export function todayRange(now = new Date(), lang?: string | null) {
  if (lang !== undefined) return zoneDayRange(now, lang);
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  return { '@gte': Math.floor(start.getTime() / 1000), '@lt': Math.floor(end.getTime() / 1000) };
}

/** The game and sport filters of a section. Live lists every sport in play. */
export function sectionWhere(section: SportSection | 'home', ids: SectionIds, esportsType?: string, now = new Date(), lang?: string | null): Where {
  const special = [...ids.esports, ...ids.virtual];
  switch (section) {
    case 'prematch':
    case 'home':
      return { sport: { id: { '@nin': special } }, game: { type: PREMATCH_TYPES } };
    case 'today':
      return { sport: { id: { '@nin': special } }, game: { type: PREMATCH_TYPES, start_ts: todayRange(now, lang) } };
    case 'live':
      return { game: { type: 1 } };
    case 'esports': {
      const game: Record<string, unknown> =
        esportsType === 'live' ? { type: 1 } : esportsType === 'prematch' ? { type: PREMATCH_TYPES }
          : esportsType === 'today' ? { type: PREMATCH_TYPES, start_ts: todayRange(now, lang) } : {};
      return { sport: { id: { '@in': ids.esports } }, game };
    }
    case 'virtualsports':
      return { sport: { id: { '@in': ids.virtual } }, game: {} };
  }
}

const merge = (a: Where, b: Where): Where => {
  const out: Where = { ...a };
  for (const [level, cond] of Object.entries(b)) out[level] = { ...(out[level] ?? {}), ...cond };
  for (const [level, cond] of Object.entries(out)) if (Object.keys(cond).length === 0) delete out[level];
  return out;
};

/** Sports with their game counts: the sport tabs of a section. */
export const sportsMenuQuery = (where: Where): SwarmQuery => ({
  what: { sport: SPORT_FIELDS, game: '@count' },
  where: merge(where, {}),
});

/** Games of a section (optionally one sport or competition) with their main market. */
export function listQuery(where: Where, opts: { sportAlias?: string; competitionId?: number; gameLimit?: number } = {}): SwarmQuery {
  const extra: Where = { market: { market_type: { '@in': MAIN_MARKET_TYPES } } };
  if (opts.sportAlias) extra.sport = { alias: opts.sportAlias };
  if (opts.competitionId) extra.competition = { id: opts.competitionId };
  if (opts.gameLimit) extra.game = { '@node_limit': opts.gameLimit };
  return {
    what: {
      sport: SPORT_FIELDS, region: ['id', 'name', 'alias'], competition: ['id', 'name'],
      game: GAME_FIELDS, market: MARKET_FIELDS, event: EVENT_FIELDS,
    },
    where: merge(where, extra),
  };
}

/** Everything of one game, with its sport, region and competition for the header and links. */
export const gameQuery = (gameId: number): SwarmQuery => ({
  what: {
    sport: SPORT_FIELDS, region: ['id', 'name', 'alias'], competition: ['id', 'name'],
    game: [], market: MARKET_FIELDS, event: EVENT_FIELDS,
  },
  where: { game: { id: gameId } },
});

/** Live games with scores (the scores pages). */
export const scoresQuery = (gameId?: number): SwarmQuery => ({
  what: { sport: SPORT_FIELDS, region: ['id', 'name', 'alias'], competition: ['id', 'name'], game: GAME_FIELDS },
  where: gameId ? { game: { id: gameId } } : { game: { type: 1 } },
});

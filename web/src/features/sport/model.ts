/** The catalogue as the Swarm query answers it (docs/protocol.md): maps keyed by id. */
export type ById<T> = Record<string, T>;

export interface GameInfo {
  current_game_state?: string;
  clock?: number;
  score1?: number;
  score2?: number;
}
export interface EventData {
  id: number;
  market_id?: number;
  name: string;
  type?: string;
  /** A JSON number on the wire (older answers: a decimal string). */
  price: number | string;
  base?: string;
  is_suspended?: boolean;
}
export interface MarketData {
  id: number;
  game_id?: number;
  market_type: string;
  name: string;
  base?: string;
  order?: number;
  is_suspended?: boolean;
  /** Each-way terms: places paid and the place fraction of the odds less one (0.25 = 1/4). */
  ew_allowed?: boolean;
  ew_places?: number;
  ew_coeff?: string;
  /** Starting price (price -1) may be taken. */
  sp_allowed?: boolean;
  event?: ById<EventData>;
}
export interface GameData {
  id: number;
  competition_id?: number;
  type: number;
  start_ts: number;
  team1_name: string;
  team2_name?: string;
  is_blocked?: boolean;
  info?: GameInfo;
  markets_count?: number;
  market?: ById<MarketData>;
}
export interface CompetitionData {
  id: number;
  name: string;
  game?: ById<GameData>;
}
export interface RegionData {
  id: number;
  name: string;
  alias: string;
  competition?: ById<CompetitionData>;
}
export interface SportData {
  id: number;
  name: string;
  alias: string;
  order?: number;
  region?: ById<RegionData>;
  /** `@count` answers the bare number in place of the level. */
  game?: ById<GameData> | number;
}

const values = <T>(map: ById<T> | undefined | null): T[] => (map ? Object.values(map) : []);

/** Object keys come back in id order: the natural orders are rebuilt here. */
export const sortedSports = (map: ById<SportData> | undefined) =>
  values(map).sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id - b.id);
export const sortedGames = (map: ById<GameData> | undefined) =>
  values(map).sort((a, b) => a.start_ts - b.start_ts || a.id - b.id);
export const sortedMarkets = (map: ById<MarketData> | undefined) =>
  values(map).sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id - b.id);

/** Team 1, draw, team 2 order by event type, then id. */
const EVENT_ORDER = ['P1', 'Home', 'Over', 'Yes', '1X', 'X', '12', 'P2', 'Away', 'Under', 'No', 'X2'];
export const sortedEvents = (map: ById<EventData> | undefined) =>
  values(map).sort((a, b) => {
    const ra = EVENT_ORDER.indexOf(a.type ?? '');
    const rb = EVENT_ORDER.indexOf(b.type ?? '');
    return (ra < 0 ? 99 : ra) - (rb < 0 ? 99 : rb) || a.id - b.id;
  });

export const gameCount = (sport: SportData) => (typeof sport.game === 'number' ? sport.game : 0);

export interface CompetitionGroup {
  sport: SportData;
  region: RegionData;
  competition: CompetitionData;
  games: GameData[];
}

/** Flattens sport > region > competition > game into competition groups, sports in order. */
export function competitionGroups(sports: ById<SportData> | undefined): CompetitionGroup[] {
  const out: CompetitionGroup[] = [];
  for (const sport of sortedSports(sports)) {
    const comps = values(sport.region).flatMap((region) => values(region.competition).map((competition) => ({ region, competition })));
    comps.sort((a, b) => a.competition.name.localeCompare(b.competition.name) || a.competition.id - b.competition.id);
    for (const { region, competition } of comps) {
      const games = sortedGames(competition.game);
      if (games.length > 0) out.push({ sport, region, competition, games });
    }
  }
  return out;
}

/** The first game found under sport > region > competition, with its parents. */
export function findGame(sports: ById<SportData> | undefined, gameId: number) {
  for (const sport of values(sports))
    for (const region of values(sport.region))
      for (const competition of values(region.competition)) {
        const game = competition.game?.[String(gameId)];
        if (game) return { sport, region, competition, game };
      }
  return null;
}

/** The 1X2 (or winner, or a race's winner) market of a list row. */
export const MAIN_MARKET_TYPES = ['P1XP2', 'P1P2', 'RaceWinner'];
export const mainMarket = (game: GameData) =>
  sortedMarkets(game.market).find((m) => MAIN_MARKET_TYPES.includes(m.market_type)) ?? null;

export const isLive = (game: GameData) => game.type === 1;
export const locked = (game: GameData, market?: MarketData | null, event?: EventData | null) =>
  Boolean(game.is_blocked || market?.is_suspended || event?.is_suspended);

/** Game clock seconds as mm:ss. */
export function clockText(seconds: number | undefined): string {
  if (seconds === undefined || seconds < 0) return '';
  const m = Math.floor(seconds / 60);
  const s = Math.floor(seconds % 60);
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/** Team logo path (spec): /wms/images/teamlogo/Teams/{size}/{floor(id / 2000)}/{id}.png. */
export const teamLogoUrl = (id: number, size = 50) =>
  `/wms/images/teamlogo/Teams/${size}/${Math.floor(id / 2000)}/${id}.png`;

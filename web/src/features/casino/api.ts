/**
 * The casino calls (spec 001 section 7.5) through the request layer, and the pure rules
 * the pages share: search length (spec 001 section 5), the sections' routes.
 */
import { apiPost } from '../../api';

export interface GameTypes { realMode: number; viewMode: number; funMode: number }

export interface CasinoGame {
  id: number;
  provider: string;
  name: string;
  front_game_id: string;
  extearnal_game_id: string;
  game_options: string;
  link: string;
  types: GameTypes;
  icon_1: string;
  icon_2: string;
  category: string;
  section: string;
  game_type: string;
  favorite: number;
  demo: boolean;
}

export interface Category { code: string; name: string; section: string }
export interface GameList {
  list: CasinoGame[];
  total_count: number;
  providers: Array<{ code: string; name: string }>;
  categories: Category[];
}
export interface SearchResult { total_count: number; games: CasinoGame[] }
export interface Launched { mode: 'real' | 'fun' | 'view'; url: string; loginurl: string }
export type Mode = Launched['mode'];

/** The section a casino page shows. */
export interface CasinoView { section: string; type?: string }

export const listGames = (view: CasinoView, extra: Record<string, unknown> = {}) =>
  apiPost<GameList>('thirdgamelist', { section: view.section, ...(view.type ? { type: view.type } : {}), pagesize: 200, ...extra });

/** /demo: every game that offers fun mode, across the sections. */
export const listFunGames = () => apiPost<GameList>('thirdgamelist', { mode: 'fun', pagesize: 200 });

/** The sections the fun games come from, in the order they first appear. */
export const sectionsOf = (games: Pick<CasinoGame, 'section'>[]) => [...new Set(games.map((g) => g.section))];

export const searchGames = (query: string, section?: string) =>
  apiPost<SearchResult>('casino/search', { query, ...(section ? { section } : {}), pagesize: 50 });

export const setFavorite = (gameId: number, on: boolean) =>
  apiPost<{ list: number[] }>('thirdgamefavorite', { game_id: gameId, favorite: on ? 1 : 0 });

/** Applies the launch-mode rules on the server: answers the URL, or code 12 for the login form. */
export const launchGame = (game: CasinoGame, mode: Mode | null, lan: string) =>
  apiPost<Launched>(game.game_type === '8' ? 'gamelogin' : 'casino_game_url', {
    game_id: game.id,
    ...(mode ? { mode } : {}),
    lan,
  });

/** Spec 001 section 5: 1 character for eng, tha (and Korean, traditional Chinese); 4 elsewhere. */
export function searchReady(query: string, lang: string): boolean {
  const chars = [...query.replace(/\s+/g, '')].length;
  const min = ['eng', 'tha', 'kor', 'cht'].includes(lang) ? 1 : 4;
  return chars >= min;
}

/** Search input debounce (spec 001 section 9). */
export const SEARCH_DEBOUNCE_MS = 800;

/** The modes a game offers, in the chooser's order. */
export function modesOf(game: CasinoGame, loggedIn: boolean): Mode[] {
  const modes: Mode[] = [];
  if (game.types.realMode) modes.push('real');
  if (game.types.funMode) modes.push('fun');
  if (game.types.viewMode) modes.push('view');
  // Visitors see real too: choosing it opens the login form (spec 001 section 4).
  return loggedIn ? modes : modes;
}

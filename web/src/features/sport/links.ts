import type { SportSection } from '../../app/router';
import type { GameData } from './model';

/** Where a game row of a section links to. */
export function gameHref(section: SportSection | 'home', game: GameData, esportsType?: string): string {
  if (section === 'home') return game.type === 1 ? `/live/game/${game.id}` : `/prematch/game/${game.id}`;
  if (section === 'esports') return `/esports/${esportsType ?? (game.type === 1 ? 'live' : 'prematch')}/game/${game.id}`;
  return `/${section}/game/${game.id}`;
}

/** The list base of a section ('/prematch', '/esports/live'). */
export const sectionBase = (section: SportSection, esportsType?: string) =>
  section === 'esports' && esportsType ? `/esports/${esportsType}` : `/${section}`;

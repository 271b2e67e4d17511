/** Search term rules (spec 000 section 5): spaces ignored, 4 characters, 1 in some languages. */
const ONE_CHARACTER_LANGUAGES = ['kor', 'cht', 'zht', 'chi', 'eng', 'tha'];
export const SEARCH_DEBOUNCE_MS = 800;

export const minSearchLength = (lang: string | null) => (lang && ONE_CHARACTER_LANGUAGES.includes(lang) ? 1 : 4);

export function searchable(term: string, lang: string | null): boolean {
  return Array.from(term.replace(/\s+/g, '')).length >= minSearchLength(lang);
}

/** Types 0 and 2 link to prematch, 1 to live (spec section 2). */
export const searchGameHref = (game: { id: number; type: number }) =>
  game.type === 1 ? `/live/game/${game.id}` : `/prematch/game/${game.id}`;

/**
 * Special prematch event pages (spec 001 section 2.1: /prematchTokyo; its footer is hidden,
 * section 2.4). The spec names the page only; here it is the Tokyo special: the prematch
 * games of the competitions played in Japan, by sport (docs/client.md "Special event page").
 */
import type { SwarmQuery } from '../live/liveSlice';
import { listQuery, sectionWhere, sportsMenuQuery, type SectionIds } from './queries';

export interface SpecialEvent {
  /** Language-file keys: `<key>.title`, `<key>.intro`. */
  key: string;
  /** Region aliases whose prematch games the page lists. */
  regions: string[];
}

export const SPECIAL_EVENTS: Record<string, SpecialEvent> = {
  prematchTokyo: { key: 'special.tokyo', regions: ['Japan'] },
};

/** The prematch filter narrowed to the event's regions. */
export function specialWhere(event: SpecialEvent, ids: SectionIds) {
  return { ...sectionWhere('prematch', ids), region: { alias: { '@in': event.regions } } };
}

/** The event's sports (chips) and the games of one sport. */
export const specialQueries = (event: SpecialEvent, ids: SectionIds, sportAlias?: string): { menu: SwarmQuery; list: SwarmQuery | null } => {
  const where = specialWhere(event, ids);
  return { menu: sportsMenuQuery(where), list: sportAlias ? listQuery(where, { sportAlias }) : null };
};

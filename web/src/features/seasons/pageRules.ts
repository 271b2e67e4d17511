/**
 * Rules only the season pages use (the lazy seasons chunk): whether a page's season has not
 * started, and the texts of season refusals. Kept apart from model.ts, which the route table
 * imports (isSeasonPath) and so sits in the first load.
 */
import type { SeasonInfo } from './model';

/**
 * Whether the season a page names (/s4season, /s6Season ...) has not started yet: a later one
 * than the running season, or between seasons any after the one that just ended (none ended:
 * every season). Such a page says "Season N has not started yet" and asks for no tasks or
 * rank reward (the server would refuse them with -64004). Pages of no particular season and
 * an unknown calendar (`info` not loaded) are never "not started".
 */
export function seasonNotStarted(seasonId: number | undefined, info: SeasonInfo | null): boolean {
  if (seasonId === undefined || !info) return false;
  if (info.status === 'season') return seasonId > (info.seasonid ?? 0);
  return seasonId > (info.previous?.seasonid ?? 0);
}

/** Season refusals with a text of their own (docs/seasons.md; -64010 is the home team's). */
const REFUSALS = [-64001, -64002, -64004, -64005, -64020, -64021, -64022, -64023, -64024];

/**
 * The language-file message of a season refusal (task and rank claims, the home team), or null
 * for other codes. The server's English msg carries what the text needs: the active days of
 * -64003, the staff's reason of -64007 (as typed), the sport of -64010.
 */
export function seasonRefusal(status: number, serverMsg = ''): { key: string; args: string[] } | null {
  if (REFUSALS.includes(status)) return { key: `season.error.${status}`, args: [] };
  if (status === -64003) {
    const days = /more than (\d+)/.exec(serverMsg)?.[1];
    return days ? { key: 'season.error.-64003', args: [days] } : null;
  }
  if (status === -64007) return { key: 'season.error.-64007', args: [serverMsg.replace(/^The claim was rejected:\s*/, '')] };
  if (status === -64010) return { key: /basketball/i.test(serverMsg) ? 'season.error.-64010_basketball' : 'season.error.-64010', args: [] };
  return null;
}

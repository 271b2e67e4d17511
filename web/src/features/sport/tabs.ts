/**
 * Market tabs (spec 000 section 9), mirroring domain/src/catalogue/tabs.rs: an exact
 * table for the full-time lines plus family rules on the CamelCase code, so a new code
 * of a known family lands in the right tab. A market may sit in several tabs; a code
 * no rule matches sits in none (the "all markets" list still shows it).
 */

/** In tab order. */
export const MARKET_TABS = [
  'AsianHandicap', 'PopularHandicap', 'MainHandicap', 'FirstHalfSecondHalf', 'Minutes',
  'Goal', 'Player', 'CornerKick', 'FunSelection', 'Overtime',
] as const;
export type MarketTab = (typeof MARKET_TABS)[number];

const EXACT: Array<[string[], MarketTab[]]> = [
  [['P1XP2', 'P1P2'], ['PopularHandicap', 'MainHandicap']],
  [['DoubleChance', 'DrawNoBet'], ['PopularHandicap']],
  [['Handicap'], ['MainHandicap']],
  [['AsianHandicap'], ['AsianHandicap', 'PopularHandicap', 'MainHandicap']],
  [['OverUnder'], ['PopularHandicap', 'MainHandicap', 'Goal']],
  [['AsianTotal'], ['AsianHandicap', 'MainHandicap', 'Goal']],
  [['BothTeamsToScore'], ['PopularHandicap', 'Goal']],
  [
    ['CorrectScore', 'TotalGoalsExact', 'Team1OverUnder', 'Team2OverUnder', 'OddEven', 'FirstTeamToScore',
      'LastTeamToScore', 'NextGoal'],
    ['Goal'],
  ],
  [['HalfTimeFullTime', 'HighestScoringHalf'], ['FirstHalfSecondHalf', 'FunSelection']],
  [
    ['WinningMargin', 'WinToNil', 'CleanSheet', 'ToWinBothHalves', 'ToScoreInBothHalves', 'PenaltyAwarded',
      'RedCard', 'OwnGoal'],
    ['FunSelection'],
  ],
  [['ToQualify', 'PenaltyShootoutWinner'], ['Overtime']],
];

const HALF_PREFIXES = ['FirstHalf', 'SecondHalf', 'HalfTime'];

function familyTabs(code: string): MarketTab[] {
  const tabs: MarketTab[] = [];
  const prefix = HALF_PREFIXES.find((p) => code.startsWith(p));
  if (prefix) {
    tabs.push('FirstHalfSecondHalf');
    // A half market keeps the Asian and Goal tabs of the rest of its code, never Main or Popular.
    tabs.push(...tabsFor(code.slice(prefix.length)).filter((t) => t === 'AsianHandicap' || t === 'Goal'));
  }
  if (code.includes('Minute')) tabs.push('Minutes');
  if (code.includes('Corner')) tabs.push('CornerKick');
  if (code.startsWith('Player') || code.includes('Goalscorer')) tabs.push('Player');
  if (code.includes('Overtime') || code.includes('ExtraTime')) tabs.push('Overtime');
  if (code.startsWith('Special')) tabs.push('FunSelection');
  return tabs;
}

/** The tabs a market of this type appears in, in tab order, without repeats. */
export function tabsFor(marketType: string): MarketTab[] {
  const found = new Set<MarketTab>(EXACT.filter(([codes]) => codes.includes(marketType)).flatMap(([, tabs]) => tabs));
  for (const tab of familyTabs(marketType)) found.add(tab);
  return MARKET_TABS.filter((t) => found.has(t));
}

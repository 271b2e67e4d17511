import { useState } from 'react';
import { useT } from '../i18n/useT';
import { useSubscription } from '../live/useSubscription';
import { EmptyState } from '../shell/EmptyState';
import { LockIcon } from '../../components/icons';
import { handicapLines } from '../../shared/odds';
import { findGame, isLive, locked, sortedEvents, sortedMarkets, type ById, type GameData, type MarketData, type SportData } from './model';
import { ExpandableList, GameTime, Skeleton, eventName } from './parts';
import { PriceButton } from './PriceButton';
import { gameQuery } from './queries';
import { MARKET_TABS, tabsFor, type MarketTab } from './tabs';
import { TeamLogo } from './TeamLogo';
import { usePageTitle } from './usePageTitle';

type TabKey = 'all' | MarketTab;

/** Markets of one type (several lines of a handicap or total) form one group. */
interface MarketGroup {
  key: string;
  name: string;
  markets: MarketData[];
}

function groupMarkets(markets: MarketData[]): MarketGroup[] {
  const groups = new Map<string, MarketGroup>();
  for (const m of markets) {
    const g = groups.get(m.market_type) ?? { key: m.market_type, name: m.name, markets: [] };
    g.markets.push(m);
    groups.set(m.market_type, g);
  }
  return [...groups.values()];
}

/** Event detail: scoreboard, market tabs (spec 000 section 9), groups showing 3 until expanded. */
export function GamePage({ gameId }: { gameId: number }) {
  const t = useT();
  const { data, status } = useSubscription<{ sport?: ById<SportData> }>(gameQuery(gameId));
  const found = findGame(data?.sport, gameId);
  usePageTitle(found?.sport.name ?? '', found?.competition.name ?? '');
  const [tab, setTab] = useState<TabKey>('all');

  if (!found) return status === 'ready' || status === 'error' ? <EmptyState textKey="empty.game_not_found" /> : <Skeleton rows={6} />;
  const { game } = found;
  const markets = sortedMarkets(game.market);
  const tabs = MARKET_TABS.filter((tb) => markets.some((m) => tabsFor(m.market_type).includes(tb)));
  const current: TabKey = tab === 'all' || tabs.includes(tab) ? tab : 'all';
  const shown = current === 'all' ? markets : markets.filter((m) => tabsFor(m.market_type).includes(current));

  return (
    <div className="game-page" data-testid="game-page">
      <Scoreboard game={game} competition={found.competition.name} />
      <nav className="market-tabs" data-testid="market-tabs">
        {(['all', ...tabs] as TabKey[]).map((key) => (
          <button key={key} type="button" className={key === current ? 'market-tabs__tab is-active' : 'market-tabs__tab'}
            onClick={() => setTab(key)} data-testid={`tab-${key}`}>
            {t(`sport.tab.${key}`)}
          </button>
        ))}
      </nav>
      {shown.length === 0 ? (
        <EmptyState />
      ) : (
        <div className="markets">
          <ExpandableList key={current} items={groupMarkets(shown)} testId="markets-more"
            render={(group) => <MarketCard key={group.key} game={game} group={group} />} />
        </div>
      )}
    </div>
  );
}

function Scoreboard({ game, competition }: { game: GameData; competition: string }) {
  const live = isLive(game);
  return (
    <section className={`scoreboard${live ? ' scoreboard--live' : ''}`} data-testid="scoreboard">
      <p className="scoreboard__comp">{competition}</p>
      <div className="scoreboard__row">
        <div className="scoreboard__team">
          <TeamLogo gameId={game.id} side="home" className="team-logo team-logo--lg" />
          <span>{game.team1_name}</span>
        </div>
        <div className="scoreboard__mid">
          {live ? (
            <strong className="scoreboard__score" data-testid="score">{game.info?.score1 ?? 0} : {game.info?.score2 ?? 0}</strong>
          ) : (
            <strong className="scoreboard__vs">VS</strong>
          )}
          <GameTime game={game} />
        </div>
        <div className="scoreboard__team">
          {game.team2_name && <TeamLogo gameId={game.id} side="away" className="team-logo team-logo--lg" />}
          <span>{game.team2_name ?? ''}</span>
        </div>
      </div>
    </section>
  );
}

function MarketCard({ game, group }: { game: GameData; group: MarketGroup }) {
  const [open, setOpen] = useState(true);
  const allLocked = group.markets.every((m) => locked(game, m));
  return (
    <section className="card market" data-testid="market">
      <button type="button" className="market__head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span>{group.name}</span>
        {allLocked && <LockIcon className="market__lock" width={14} height={14} />}
        <span className={open ? 'market__chev is-open' : 'market__chev'} aria-hidden="true">›</span>
      </button>
      {open && group.markets.map((market) => {
        const events = sortedEvents(market.event);
        return (
          <div key={market.id} className={`market__line market__line--${Math.min(3, Math.max(2, events.length))}`}>
            {market.base !== undefined && group.markets.length > 1 && <span className="market__base">{handicapLines(market.base)}</span>}
            {events.map((e) => <PriceButton key={e.id} game={game} market={market} event={e} label={eventName(e, game)} />)}
          </div>
        );
      })}
    </section>
  );
}

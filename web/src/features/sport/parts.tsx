import { useState, type ReactNode } from 'react';
import { startText } from '../../shared/time';
import { Link } from '../../app/router';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { signedLine } from '../../shared/odds';
import { PriceButton } from './PriceButton';
import { TeamLogo } from './TeamLogo';
import { clockText, gameCount, isLive, mainMarket, sortedEvents, type EventData, type GameData, type SportData } from './model';

/** Collapsed groups show their first 3 children (spec 000 section 9). */
export const COLLAPSED_CHILDREN = 3;

export function ExpandableList<T>({ items, render, testId }: { items: T[]; render: (item: T) => ReactNode; testId?: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const shown = open ? items : items.slice(0, COLLAPSED_CHILDREN);
  const hidden = items.length - COLLAPSED_CHILDREN;
  return (
    <>
      {shown.map(render)}
      {hidden > 0 && (
        <button type="button" className="show-more" data-testid={testId ?? 'show-more'} onClick={() => setOpen(!open)}>
          {open ? t('sport.show_less') : t('sport.show_more', hidden)}
        </button>
      )}
    </>
  );
}

/** The period name from the language file, else as the feed sends it. */
export function useStateLabel() {
  const t = useT();
  return (state: string | undefined) => {
    if (!state) return '';
    const key = `live.state.${state.replace(/\s+/g, '_')}`;
    const text = t(key);
    return text === key ? state : text;
  };
}

/** Clock and period of a live game, or its start time. */
export function GameTime({ game }: { game: GameData }) {
  const t = useT();
  const stateLabel = useStateLabel();
  const lang = useAppSelector((s) => s.i18n.lang);
  if (isLive(game)) {
    return (
      <span className="game-time game-time--live" data-testid="game-clock">
        <span className="live-pill">{t('sport.live')}</span>
        {stateLabel(game.info?.current_game_state)} {clockText(game.info?.clock)}
      </span>
    );
  }
  return <span className="game-time">{startText(game.start_ts, lang)}</span>;
}

/** Start times in the language's time zone (Asia/Bangkok but for zhh): shared/time.ts. */
export { startText };

/** 1 / X / 2 over the main prices; other events by name. */
export function shortLabel(event: EventData, game: GameData): string {
  switch (event.type) {
    case 'P1': return '1';
    case 'X': return 'X';
    case 'P2': return '2';
    default: return eventName(event, game);
  }
}

/** Placeholders (W1, Team 1, Home ...) replaced by the team names (spec section 3). */
export function eventName(event: EventData, game: GameData): string {
  const team1 = game.team1_name;
  const team2 = game.team2_name ?? '';
  const map: Record<string, string> = { W1: team1, 'Team 1': team1, Home: team1, W2: team2, 'Team 2': team2, Away: team2 };
  const name = map[event.name] ?? event.name;
  const line = event.base ?? '';
  if (!line) return name;
  return ['Home', 'Away', 'P1', 'P2'].includes(event.type ?? '') || name === team1 || name === team2
    ? `${name} ${signedLine(line)}`
    : `${name} ${signedLine(line).replace(/^\+/, '')}`;
}

/** A list row: time or clock, teams (with score when live), the main prices. */
export function GameRow({ game, href }: { game: GameData; href: string }) {
  const t = useT();
  const market = mainMarket(game);
  const events = market ? sortedEvents(market.event) : [];
  const live = isLive(game);
  const more = Math.max(0, (game.markets_count ?? 0) - (market ? 1 : 0));
  return (
    <div className={`game-row${live ? ' game-row--live' : ''}`} data-testid="game-row" data-game={game.id}>
      <Link href={href} className="game-row__main" data-testid="game-link">
        <div className="game-row__meta">
          <GameTime game={game} />
          {more > 0 && <span className="game-row__more">{t('sport.markets_more', more)}<span aria-hidden="true"> ›</span></span>}
        </div>
        <div className="game-row__team">
          <TeamLogo gameId={game.id} side="home" className="team-logo team-logo--sm" />
          <span className="game-row__name">{game.team1_name}</span>
          {live && <span className="game-row__score" data-testid="score1">{game.info?.score1 ?? 0}</span>}
        </div>
        {game.team2_name && (
          <div className="game-row__team">
            <TeamLogo gameId={game.id} side="away" className="team-logo team-logo--sm" />
            <span className="game-row__name">{game.team2_name}</span>
            {live && <span className="game-row__score" data-testid="score2">{game.info?.score2 ?? 0}</span>}
          </div>
        )}
      </Link>
      <div className={`game-row__prices game-row__prices--${Math.max(2, events.length)}`}>
        {market && events.length > 0 ? (
          events.map((e) => <PriceButton key={e.id} game={game} market={market} event={e} label={shortLabel(e, game)} />)
        ) : (
          <span className="game-row__none">{t('sport.no_prices')}</span>
        )}
      </div>
    </div>
  );
}

/** Horizontal sport chips with game counts. */
export function SportChips({ sports, base, active }: { sports: SportData[]; base: string; active?: string }) {
  return (
    <nav className="chips" data-testid="sport-chips">
      {sports.map((s) => (
        <Link key={s.id} href={`${base}/${s.alias}`} className={s.alias === active ? 'chip is-active' : 'chip'}>
          <SportGlyph sportId={s.id} />
          <span>{s.name}</span>
          <span className="chip__count">{gameCount(s)}</span>
        </Link>
      ))}
    </nav>
  );
}

/** Small line icons per sport (emoji are missing from many Android and Linux fonts). */
const GLYPHS: Record<number, string> = {
  1: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm0 5 3.8 2.8-1.5 4.4H9.7l-1.5-4.4z',
  2: 'M5 4l7 12M19 4l-7 12M4 19h6M14 19h6',
  3: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM3 12h18M12 3v18M5.6 5.6c3 3 3 9.8 0 12.8M18.4 5.6c-3 3-3 9.8 0 12.8',
  4: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM5 6.5c4 3 4 8 0 11M19 6.5c-4 3-4 8 0 11',
  75: 'M6 9h12a3 3 0 0 1 3 3v3a2 2 0 0 1-3.5 1.3L16 15H8l-1.5 1.3A2 2 0 0 1 3 15v-3a3 3 0 0 1 3-3zM8 11v3M6.5 12.5h3M16 12h.01M18 13.5h.01',
  300: 'M4 5h16v11H4zM9 20h6M12 16v4M9 10.5l2 2 4-4',
};
export const SportGlyph = ({ sportId }: { sportId: number }) => (
  <svg className="sport-glyph" viewBox="0 0 24 24" width="15" height="15" fill="none" stroke="currentColor" strokeWidth="1.8"
    strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
    <path d={GLYPHS[sportId] ?? 'M12 4a8 8 0 1 0 0 16 8 8 0 0 0 0-16z'} />
  </svg>
);

export function SectionTitle({ children, live }: { children: ReactNode; live?: boolean }) {
  return (
    <h2 className="section-title">
      {live && <span className="live-dot" aria-hidden="true" />}
      {children}
    </h2>
  );
}

export function Skeleton({ rows = 4 }: { rows?: number }) {
  return (
    <div className="skeleton" aria-busy="true" data-testid="skeleton">
      {Array.from({ length: rows }, (_, i) => <div key={i} className="skeleton__row" />)}
    </div>
  );
}

/** /prematchTokyo: a special prematch event page (special.ts): a banner, its sports, its games by competition. */
import { useMemo, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { selectConfig } from '../config/selectors';
import { useT } from '../i18n/useT';
import { useSubscription } from '../live/useSubscription';
import { EmptyState } from '../shell/EmptyState';
import { gameHref } from './links';
import { competitionGroups, gameCount, sortedSports, type ById, type SportData } from './model';
import { ExpandableList, GameRow, Skeleton, SportGlyph } from './parts';
import { sectionIds } from './queries';
import { SPECIAL_EVENTS, specialQueries } from './special';
import { usePageTitle } from './usePageTitle';
import './special.css';

export function SpecialEventPage({ name }: { name: string }) {
  const t = useT();
  const conf = useAppSelector(selectConfig);
  const event = SPECIAL_EVENTS[name]!;
  const [picked, setPicked] = useState<string | undefined>();
  const ids = useMemo(() => sectionIds(conf), [conf]);
  // useSubscription keys each query by its content: no memo needed
  const menu = useSubscription<{ sport?: ById<SportData> }>(specialQueries(event, ids).menu);
  const sports = sortedSports(menu.data?.sport);
  const active = picked && sports.some((s) => s.alias === picked) ? picked : sports[0]?.alias;
  const list = useSubscription<{ sport?: ById<SportData> }>(specialQueries(event, ids, active).list);
  const groups = competitionGroups(list.data?.sport);
  const total = sports.reduce((n, s) => n + gameCount(s), 0);
  usePageTitle(t(`${event.key}.title`), '');
  const loading = menu.status !== 'ready' || (sports.length > 0 && list.status !== 'ready');
  return (
    <div className="sport-page special" data-testid="special-page" data-event={name}>
      <header className="special__hero">
        <span className="special__sun" aria-hidden="true" />
        <p className="special__kicker">{t(`${event.key}.kicker`)}</p>
        <h1 className="special__title">{t(`${event.key}.title`)}</h1>
        <p className="special__intro">{t(`${event.key}.intro`)}</p>
        {menu.status === 'ready' && <p className="special__count" data-testid="special-count">{t('special.games', total)}</p>}
      </header>
      {sports.length > 0 && (
        <nav className="chips" data-testid="sport-chips">
          {sports.map((s) => (
            <button key={s.id} type="button" className={s.alias === active ? 'chip is-active' : 'chip'} onClick={() => setPicked(s.alias)}>
              <SportGlyph sportId={s.id} />
              <span>{s.name}</span>
              <span className="chip__count">{gameCount(s)}</span>
            </button>
          ))}
        </nav>
      )}
      {loading && groups.length === 0 ? <Skeleton /> : groups.length === 0 ? <EmptyState textKey="special.empty" /> : (
        groups.map((g) => (
          <section key={g.competition.id} className="card comp-card" data-testid="competition">
            <header className="comp-card__head">
              <SportGlyph sportId={g.sport.id} />
              <span className="comp-card__title">{g.region.name} · {g.competition.name}</span>
              <span className="comp-card__count">{g.games.length}</span>
            </header>
            <ExpandableList items={g.games} render={(game) => <GameRow key={game.id} game={game} href={gameHref('prematch', game)} />} />
          </section>
        ))
      )}
    </div>
  );
}

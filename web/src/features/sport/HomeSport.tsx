import { useMemo } from 'react';
import { Link } from '../../app/router';
import { useAppSelector } from '../../app/hooks';
import { selectConfig } from '../config/selectors';
import { useT } from '../i18n/useT';
import { useSubscription } from '../live/useSubscription';
import { EmptyState } from '../shell/EmptyState';
import { gameHref } from './links';
import { competitionGroups, type ById, type SportData } from './model';
import { GameRow, SectionTitle, Skeleton } from './parts';
import { listQuery, sectionIds, sectionWhere } from './queries';

/** Games per sport on the home page. */
const LIVE_PER_SPORT = 2;
const UPCOMING_PER_SPORT = 2;

/** Home lists: live now, then upcoming highlights. */
export function HomeSport() {
  const t = useT();
  const conf = useAppSelector(selectConfig);
  const ids = useMemo(() => sectionIds(conf), [conf]);
  const live = useSubscription<{ sport?: ById<SportData> }>(listQuery(sectionWhere('live', ids), { gameLimit: LIVE_PER_SPORT }));
  const upcoming = useSubscription<{ sport?: ById<SportData> }>(listQuery(sectionWhere('home', ids), { gameLimit: UPCOMING_PER_SPORT }));
  const liveGames = competitionGroups(live.data?.sport).flatMap((g) => g.games);
  const upcomingGames = competitionGroups(upcoming.data?.sport).flatMap((g) => g.games).sort((a, b) => a.start_ts - b.start_ts).slice(0, 8);
  return (
    <>
      <section className="card home-list" data-testid="home-live">
        <div className="home-list__head">
          <SectionTitle live>{t('sport.live_now')}</SectionTitle>
          <Link href="/live" className="home-list__all">{t('sport.view_all')} ›</Link>
        </div>
        {live.status !== 'ready' && liveGames.length === 0 ? <Skeleton rows={3} />
          : liveGames.length === 0 ? <EmptyState />
            : liveGames.map((g) => <GameRow key={g.id} game={g} href={gameHref('home', g)} />)}
      </section>
      <section className="card home-list" data-testid="home-upcoming">
        <div className="home-list__head">
          <SectionTitle>{t('sport.upcoming')}</SectionTitle>
          <Link href="/prematch" className="home-list__all">{t('sport.view_all')} ›</Link>
        </div>
        {upcoming.status !== 'ready' && upcomingGames.length === 0 ? <Skeleton rows={3} />
          : upcomingGames.length === 0 ? <EmptyState />
            : upcomingGames.map((g) => <GameRow key={g.id} game={g} href={gameHref('home', g)} />)}
      </section>
    </>
  );
}

import { Link } from '../../app/router';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { selectLiveUp } from '../live/selectors';
import { useSubscription } from '../live/useSubscription';
import { EmptyState } from '../shell/EmptyState';
import { competitionGroups, findGame, type ById, type SportData } from './model';
import { GameTime, SectionTitle, Skeleton } from './parts';
import { scoresQuery } from './queries';
import { TeamLogo } from './TeamLogo';
import { usePageTitle } from './usePageTitle';

/** /scores and /scores/{id}: only while the live-data connection is up (spec section 2). */
export function ScoresPage({ id }: { id?: number }) {
  const t = useT();
  const up = useAppSelector(selectLiveUp);
  usePageTitle(t('sport.scores'));
  if (!up) {
    return (
      <div className="maintenance" role="alert" data-testid="maintenance">
        <p>{t('sport.maintenance')}</p>
        <Link href="/" className="btn btn--primary">{t('menu.home')}</Link>
      </div>
    );
  }
  return id ? <ScoreDetail id={id} /> : <ScoreList />;
}

function ScoreList() {
  const t = useT();
  const { data, status } = useSubscription<{ sport?: ById<SportData> }>(scoresQuery());
  const groups = competitionGroups(data?.sport);
  if (status !== 'ready' && groups.length === 0) return <Skeleton />;
  if (groups.length === 0) return <EmptyState />;
  return (
    <div className="scores" data-testid="scores">
      <SectionTitle live>{t('sport.scores')}</SectionTitle>
      {groups.map((g) => (
        <section key={g.competition.id} className="card">
          <h3 className="comp-card__title comp-card__title--plain">{g.sport.name} · {g.competition.name}</h3>
          {g.games.map((game) => (
            <Link key={game.id} href={`/scores/${game.id}`} className="score-row">
              <span className="score-row__teams">{game.team1_name}<br />{game.team2_name ?? ''}</span>
              <span className="score-row__score">{game.info?.score1 ?? 0}<br />{game.info?.score2 ?? 0}</span>
              <GameTime game={game} />
            </Link>
          ))}
        </section>
      ))}
    </div>
  );
}

function ScoreDetail({ id }: { id: number }) {
  const { data, status } = useSubscription<{ sport?: ById<SportData> }>(scoresQuery(id));
  const found = findGame(data?.sport, id);
  if (!found) return status === 'ready' ? <EmptyState textKey="empty.game_not_found" /> : <Skeleton />;
  const { game } = found;
  return (
    <section className="scoreboard scoreboard--live" data-testid="score-detail">
      <p className="scoreboard__comp">{found.sport.name} · {found.competition.name}</p>
      <div className="scoreboard__row">
        <div className="scoreboard__team"><TeamLogo gameId={game.id} side="home" className="team-logo team-logo--lg" /><span>{game.team1_name}</span></div>
        <div className="scoreboard__mid">
          <strong className="scoreboard__score">{game.info?.score1 ?? 0} : {game.info?.score2 ?? 0}</strong>
          <GameTime game={game} />
        </div>
        <div className="scoreboard__team"><TeamLogo gameId={game.id} side="away" className="team-logo team-logo--lg" /><span>{game.team2_name ?? ''}</span></div>
      </div>
    </section>
  );
}

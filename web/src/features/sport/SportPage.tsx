import { useMemo } from 'react';
import { SeasonBanner } from '../seasons/SeasonBanner';
import { Link, type SportSection } from '../../app/router';
import { useAppSelector } from '../../app/hooks';
import { selectConfig } from '../config/selectors';
import { useT } from '../i18n/useT';
import { useSubscription } from '../live/useSubscription';
import { EmptyState } from '../shell/EmptyState';
import { gameHref, sectionBase } from './links';
import { competitionGroups, sortedSports, type ById, type SportData } from './model';
import { ExpandableList, GameRow, SectionTitle, Skeleton, SportChips, SportGlyph } from './parts';
import { listQuery, sectionIds, sectionWhere, sportsMenuQuery } from './queries';
import { usePageTitle } from './usePageTitle';

interface Props {
  section: SportSection;
  esportsType?: string;
  sportAlias?: string;
  regionAlias?: string;
  competitionId?: number;
}

/** Section lists: sport chips, then the games by competition (or one competition). */
export function SportPage({ section, esportsType, sportAlias, regionAlias, competitionId }: Props) {
  const t = useT();
  const conf = useAppSelector(selectConfig);
  const lang = useAppSelector((s) => s.i18n.lang);
  // 'today' is the day of the language's time zone (Asia/Bangkok but for zhh)
  const where = useMemo(() => sectionWhere(section, sectionIds(conf), esportsType, new Date(), lang), [section, conf, esportsType, lang]);
  const menu = useSubscription<{ sport?: ById<SportData> }>(sportsMenuQuery(where));
  const sports = sortedSports(menu.data?.sport);
  // Prematch and today open on their first sport; the other sections list every sport.
  const pickFirst = section === 'prematch' || section === 'today';
  const activeAlias = sportAlias ?? (pickFirst ? sports[0]?.alias : undefined);
  const listReady = !pickFirst || Boolean(activeAlias) || menu.status === 'ready';
  const list = useSubscription<{ sport?: ById<SportData> }>(
    listReady && (activeAlias || !pickFirst) ? listQuery(where, { sportAlias: activeAlias, competitionId }) : null,
  );
  const groups = competitionGroups(list.data?.sport);
  const base = sectionBase(section, esportsType);
  const activeSport = sports.find((s) => s.alias === activeAlias);
  const competitionName = competitionId ? groups[0]?.competition.name ?? '' : '';
  usePageTitle(activeSport?.name ?? t(`menu.${section}`), competitionName);

  const loading = menu.status !== 'ready' || (list.status !== 'ready' && !(menu.status === 'ready' && sports.length === 0));
  const emptyKey = competitionId ? 'empty.league_not_found' : 'empty.no_data';

  return (
    <div className="sport-page" data-testid={`sport-page-${section}`}>
      {sports.length > 0 && <SportChips sports={sports} base={base} active={activeAlias} />}
      {competitionId ? <SeasonBanner /> : null}
      {section === 'prematch' && !competitionId && (
        <Link href="/prematchTokyo" className="special-link" data-testid="special-link">
          <span className="special-link__sun" aria-hidden="true" />{t('special.tokyo.title')}<span aria-hidden="true">›</span>
        </Link>
      )}
      {section === 'esports' && <EsportsTypes active={esportsType} />}
      {loading && groups.length === 0 ? (
        <Skeleton />
      ) : groups.length === 0 ? (
        <EmptyState textKey={emptyKey} />
      ) : (
        groups.map((g) => (
          <section key={g.competition.id} className="card comp-card" data-testid="competition">
            <header className="comp-card__head">
              <SportGlyph sportId={g.sport.id} />
              {section === 'prematch' || section === 'today' ? (
                <Link href={`${base}/${g.sport.alias}/${g.region.alias}/${g.competition.id}`} className="comp-card__title">
                  {g.region.name} · {g.competition.name}
                </Link>
              ) : (
                <span className="comp-card__title">{g.region.name} · {g.competition.name}</span>
              )}
              <span className="comp-card__count">{g.games.length}</span>
            </header>
            <ExpandableList items={g.games} render={(game) => (
              <GameRow key={game.id} game={game} href={gameHref(section, game, esportsType)} />
            )} />
          </section>
        ))
      )}
      {regionAlias && groups.length > 0 && <p className="sr-only">{regionAlias}</p>}
    </div>
  );
}

function EsportsTypes({ active }: { active?: string }) {
  const t = useT();
  const items = [undefined, 'live', 'prematch', 'today'];
  return (
    <nav className="seg" aria-label={t('menu.esports')}>
      {items.map((type) => (
        <Link key={type ?? 'all'} href={type ? `/esports/${type}` : '/esports'} className={type === active ? 'seg__item is-active' : 'seg__item'}>
          {type ? t(`menu.${type}`) : t('sport.all')}
        </Link>
      ))}
    </nav>
  );
}

export function SectionHeading({ section }: { section: SportSection }) {
  const t = useT();
  return <SectionTitle live={section === 'live'}>{t(`menu.${section}`)}</SectionTitle>;
}

import { useEffect, useRef } from 'react';
import { Link } from '../../app/router';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { CloseIcon, SearchIcon } from '../../components/icons';
import { useT } from '../i18n/useT';
import { EmptyState } from '../shell/EmptyState';
import { startText } from './parts';
import { minSearchLength, searchGameHref, searchable } from './search';
import { sportActions } from './sportSlice';

/** Sport search (spec 001 section 2.11): results grouped by sport, linking by game type. */
export function SearchOverlay() {
  const t = useT();
  const dispatch = useAppDispatch();
  const { searchTerm, searchStatus, searchResults } = useAppSelector((s) => s.sport);
  const lang = useAppSelector((s) => s.i18n.lang);
  const input = useRef<HTMLInputElement>(null);
  const close = () => dispatch(sportActions.searchOpened(false));
  useEffect(() => input.current?.focus(), []);
  const enough = searchable(searchTerm, lang);

  return (
    <div className="search" role="dialog" aria-modal="true" aria-label={t('sport.search.title')} data-testid="search-overlay">
      <div className="search__bar">
        <label className="search__field">
          <SearchIcon width={18} height={18} />
          <input ref={input} type="search" value={searchTerm} placeholder={t('sport.search.placeholder')} data-testid="search-input"
            onChange={(e) => dispatch(sportActions.searchTyped(e.target.value))} />
        </label>
        <button type="button" className="search__close" onClick={close} aria-label={t('common.close')} data-testid="search-close">
          <CloseIcon width={20} height={20} />
        </button>
      </div>
      <div className="search__body">
        {!enough ? (
          <p className="search__hint">{t('sport.search.min', minSearchLength(lang))}</p>
        ) : searchStatus === 'loading' ? (
          <div className="loader__spinner search__spinner" aria-busy="true" />
        ) : searchStatus === 'done' && searchResults.length === 0 ? (
          <EmptyState />
        ) : (
          searchResults.map((group) => (
            <section key={group.alias} className="search__group" data-testid="search-group">
              <h3 className="search__sport">{group.name}</h3>
              {group.results.map(({ game, competition }) => (
                <Link key={game.id} href={searchGameHref(game)} className="search__item" onClick={close} data-testid="search-result">
                  <span className="search__teams">
                    {game.team1_name}{game.team2_name ? ` - ${game.team2_name}` : ''}
                    {game.type === 1 && <span className="live-pill">{t('sport.live')}</span>}
                  </span>
                  <span className="search__meta">{competition.name} · {startText(game.start_ts, lang)}</span>
                </Link>
              ))}
            </section>
          ))
        )}
      </div>
    </div>
  );
}

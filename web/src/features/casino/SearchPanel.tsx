/** The casino search panel (spec 001 section 2.11): 'Search results', the total count, close, games. */
import { useEffect, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { selectLanguage } from '../i18n/selectors';
import { useT } from '../i18n/useT';
import { SEARCH_DEBOUNCE_MS, searchGames, searchReady, type CasinoGame, type SearchResult } from './api';

export function SearchPanel({ section, onClose, onPlay }: { section: string; onClose: () => void; onPlay: (g: CasinoGame) => void }) {
  const t = useT();
  const lang = useAppSelector(selectLanguage);
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchResult | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    if (!searchReady(query, lang ?? "eng")) {
      setResult(null);
      return;
    }
    let live = true;
    const timer = window.setTimeout(() => {
      searchGames(query.trim(), section)
        .then((r) => { if (live) { setResult(r); setFailed(false); } })
        .catch(() => live && setFailed(true));
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [query, lang, section]);

  return (
    <div className="overlay casino-search" role="dialog" aria-modal="true" data-testid="casino-search">
      <div className="casino-search__panel">
        <div className="casino-search__bar">
          <input autoFocus type="search" maxLength={50} value={query} placeholder={t('casino.search_placeholder')}
            data-testid="casino-search-input" onChange={(e) => setQuery(e.target.value)} />
          <button type="button" className="casino-search__close" aria-label={t('casino.close')} data-testid="casino-search-close" onClick={onClose}>✕</button>
        </div>
        {result && (
          <>
            <h2 className="casino-search__heading">
              {t('casino.search_results')} <span data-testid="casino-search-count">({result.total_count})</span>
            </h2>
            {result.games.length === 0 && <p className="casino__empty">{t('empty.game_not_found')}</p>}
            <ul className="casino-search__list">
              {result.games.map((g) => (
                <li key={g.id} className="casino-search__item" data-testid="casino-search-item">
                  <img src={g.icon_1} alt="" />
                  <span>{g.name}</span>
                  <button type="button" className="btn btn--gold btn--sm" onClick={() => onPlay(g)}>{t('casino.play')}</button>
                </li>
              ))}
            </ul>
          </>
        )}
        {failed && <p className="casino__empty">{t('casino.error')}</p>}
      </div>
    </div>
  );
}

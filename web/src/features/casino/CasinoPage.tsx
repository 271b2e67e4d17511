/**
 * /casino, /live-casino, /thirdparty/{type}, /PPSlots, /catmin, /specialty (spec 001 section 2.1):
 * categories, providers, favourites, the search panel (section 2.11), the game chooser
 * (section 2.12) and the full-screen launch frame with the balance kept in sync.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError } from '../../api';
import { SAFER_REFUSALS } from '../safer/refusals';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectLanguage } from '../i18n/selectors';
import { useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { uiActions } from '../shell/uiSlice';
import { Balance } from '../balance/Balance';
import { balanceActions } from '../balance/balanceSlice';
import { Link } from '../../app/router';
import { launchGame, listFunGames, listGames, modesOf, sectionsOf, setFavorite, type CasinoGame, type GameList, type Mode } from './api';
import { SearchPanel } from './SearchPanel';
import './casino.css';

const NOT_LOGGED_IN = 12;

/** Launch state shared by the page, the chooser and the search panel. */
export function useLauncher() {
  const dispatch = useAppDispatch();
  const lang = useAppSelector(selectLanguage);
  const [frame, setFrame] = useState<{ game: CasinoGame; url: string; mode: Mode } | null>(null);
  const [maintenance, setMaintenance] = useState<number[]>([]);
  const launch = useCallback(async (game: CasinoGame, mode: Mode | null) => {
    try {
      const answer = await launchGame(game, mode, lang ?? "eng");
      const url = answer.loginurl || answer.url;
      if (!url) throw new Error('no game URL');
      setFrame({ game, url, mode: answer.mode });
    } catch (err) {
      if (err instanceof ApiError && err.status === NOT_LOGGED_IN) {
        dispatch(uiActions.popupRequested({ name: 'login' }));
        return;
      }
      // a self-exclusion, a time-out or a limit says so (real play is closed, the game is not broken)
      if (err instanceof ApiError && SAFER_REFUSALS.has(err.status)) {
        dispatch(uiActions.notified({ kind: 'warning', key: err.i18n.key, args: err.i18n.args }));
        return;
      }
      if (game.game_type === '8') setMaintenance((m) => [...m, game.id]);
      dispatch(uiActions.notified({ kind: 'warning', key: 'casino.error' }));
    }
  }, [dispatch, lang]);
  return { frame, close: () => setFrame(null), launch, maintenance };
}

export function CasinoPage({ section, type }: { section: string; type?: string }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  const [data, setData] = useState<GameList | null>(null);
  const [failed, setFailed] = useState(false);
  const [tab, setTab] = useState<string>('all');
  const [provider, setProvider] = useState<string>('');
  const [favorites, setFavorites] = useState<number[]>([]);
  const [chooser, setChooser] = useState<CasinoGame | null>(null);
  const [searching, setSearching] = useState(false);
  const launcher = useLauncher();

  useEffect(() => {
    let live = true;
    listGames({ section, type })
      .then((list) => {
        if (!live) return;
        setData(list);
        setFailed(false);
        setFavorites(list.list.filter((g) => g.favorite).map((g) => g.id));
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [section, type, loggedIn]);

  const games = useMemo(() => {
    const all = data?.list ?? [];
    return all
      .filter((g) => (tab === 'all' ? true : tab === 'favorites' ? favorites.includes(g.id) : g.category === tab))
      .filter((g) => !provider || g.provider === provider);
  }, [data, tab, provider, favorites]);

  const toggleFavorite = async (game: CasinoGame) => {
    if (!loggedIn) {
      dispatch(uiActions.popupRequested({ name: 'login' }));
      return;
    }
    try {
      const answer = await setFavorite(game.id, !favorites.includes(game.id));
      setFavorites(answer.list);
    } catch {
      dispatch(uiActions.notified({ kind: 'warning', key: 'casino.error' }));
    }
  };

  const play = (game: CasinoGame) => {
    if (game.link) return void launcher.launch(game, null);
    if (modesOf(game, loggedIn).length > 1) return setChooser(game);
    void launcher.launch(game, null);
  };

  const title = type ? `${t(`casino.section.${section}`)} ${type}` : t(`casino.section.${section}`);
  return (
    <section className="casino" data-testid="casino-page" data-section={section}>
      <div className="casino__head">
        <h1 className="casino__title">{title}</h1>
        <button type="button" className="casino__search-btn" data-testid="casino-search-open" onClick={() => setSearching(true)}>
          {t('casino.search')}
        </button>
      </div>
      <p className="casino__demo">{t('casino.demo_note')} <Link href="/demo" data-testid="demo-link">{t('casino.demo_link')}</Link></p>
      <div className="casino__tabs" role="tablist">
        <Tab id="all" current={tab} onPick={setTab} label={t('casino.all')} />
        {data?.categories.map((c) => <Tab key={c.code} id={c.code} current={tab} onPick={setTab} label={t(`casino.category.${c.code}`)} />)}
        {loggedIn && <Tab id="favorites" current={tab} onPick={setTab} label={t('casino.favorites')} />}
      </div>
      {data && data.providers.length > 0 && (
        <div className="casino__providers">
          <button type="button" className={provider ? 'chip' : 'chip is-on'} onClick={() => setProvider('')}>{t('casino.all_providers')}</button>
          {data.providers.map((p) => (
            <button key={p.code} type="button" className={provider === p.code ? 'chip is-on' : 'chip'} onClick={() => setProvider(p.code)}>{p.name}</button>
          ))}
        </div>
      )}
      {!data && !failed && <div className="page-loading" aria-busy="true" />}
      {(failed || (data && games.length === 0)) && <p className="casino__empty" data-testid="casino-empty">{t(failed ? 'casino.error' : 'empty.no_data')}</p>}
      <ul className="casino__grid">
        {games.map((g) => (
          <li key={g.id} className="game-card" data-testid="casino-game" data-game={g.extearnal_game_id}>
            <img src={g.icon_1} alt="" loading="lazy" className="game-card__icon" />
            <button type="button" className={favorites.includes(g.id) ? 'game-card__fav is-on' : 'game-card__fav'}
              aria-label={t('casino.favorite')} data-testid="casino-favorite" onClick={() => void toggleFavorite(g)}>★</button>
            <span className="game-card__name">{g.name}</span>
            <button type="button" className="btn btn--gold btn--sm game-card__play" data-testid="casino-play"
              disabled={launcher.maintenance.includes(g.id)} onClick={() => play(g)}>
              {launcher.maintenance.includes(g.id) ? t('casino.maintenance') : t('casino.play')}
            </button>
          </li>
        ))}
      </ul>
      {chooser && (
        <GameChooser game={chooser} loggedIn={loggedIn} onClose={() => setChooser(null)}
          onPick={(mode) => { setChooser(null); void launcher.launch(chooser, mode); }} />
      )}
      {searching && <SearchPanel section={section} onClose={() => setSearching(false)} onPlay={(g) => { setSearching(false); play(g); }} />}
      {launcher.frame && <GameFrame {...launcher.frame} onClose={launcher.close} />}
    </section>
  );
}

/**
 * /demo (spec 001 sections 2.1, 4 and 6): every game with fun mode, played with play money.
 * No login needed and no real balance moves; the frame says 'Fun' and shows no balance.
 */
export function DemoGamesPage() {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const [games, setGames] = useState<CasinoGame[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [tab, setTab] = useState('all');
  const launcher = useLauncher();
  useEffect(() => {
    let live = true;
    listFunGames().then((list) => live && setGames(list.list)).catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, []);
  const shown = (games ?? []).filter((g) => tab === 'all' || g.section === tab);
  return (
    <section className="casino casino--demo" data-testid="demo-page">
      <div className="casino-demo__hero">
        <h1 className="casino__title">{t('casino.demo_title')}</h1>
        <p>{t('casino.demo_intro')}</p>
        {!loggedIn && <p className="casino-demo__hint">{t('casino.demo_login')}</p>}
        <Link href="/casino" className="casino-demo__real">{t('casino.demo_real')}</Link>
      </div>
      <p className="casino__demo">{t('casino.demo_note')}</p>
      <div className="casino__tabs" role="tablist">
        <Tab id="all" current={tab} onPick={setTab} label={t('casino.all')} />
        {sectionsOf(games ?? []).map((s) => <Tab key={s} id={s} current={tab} onPick={setTab} label={t(`casino.section.${s}`)} />)}
      </div>
      {!games && !failed && <div className="page-loading" aria-busy="true" />}
      {(failed || (games && shown.length === 0)) && <p className="casino__empty" data-testid="casino-empty">{t(failed ? 'casino.error' : 'empty.no_data')}</p>}
      <ul className="casino__grid">
        {shown.map((g) => (
          <li key={g.id} className="game-card" data-testid="demo-game" data-game={g.extearnal_game_id}>
            <img src={g.icon_1} alt="" loading="lazy" className="game-card__icon" />
            <span className="game-card__name">{g.name}</span>
            <button type="button" className="btn btn--gold btn--sm game-card__play" data-testid="demo-play"
              disabled={launcher.maintenance.includes(g.id)} onClick={() => void launcher.launch(g, 'fun')}>
              {launcher.maintenance.includes(g.id) ? t('casino.maintenance') : t('casino.demo_play')}
            </button>
          </li>
        ))}
      </ul>
      {launcher.frame && <GameFrame {...launcher.frame} onClose={launcher.close} />}
    </section>
  );
}

function Tab({ id, current, onPick, label }: { id: string; current: string; onPick: (id: string) => void; label: string }) {
  return (
    <button type="button" role="tab" aria-selected={id === current} className={id === current ? 'casino__tab is-on' : 'casino__tab'}
      data-testid={`casino-tab-${id}`} onClick={() => onPick(id)}>
      {label}
    </button>
  );
}

/** The game chooser popup (spec 001 section 2.12): real, fun or view. */
export function GameChooser({ game, loggedIn, onPick, onClose }: { game: CasinoGame; loggedIn: boolean; onPick: (m: Mode) => void; onClose: () => void }) {
  const t = useT();
  return (
    <div className="overlay overlay--sheet" role="dialog" aria-modal="true" data-testid="game-chooser" onClick={onClose}>
      <div className="sheet casino-chooser" onClick={(e) => e.stopPropagation()}>
        <img src={game.icon_2 || game.icon_1} alt="" className="casino-chooser__art" />
        <h2>{game.name}</h2>
        <div className="casino-chooser__modes">
          {modesOf(game, loggedIn).map((m) => (
            <button key={m} type="button" className={m === 'real' ? 'btn btn--gold' : 'btn btn--ghost'} data-testid={`mode-${m}`} onClick={() => onPick(m)}>
              {t(`casino.mode.${m}`)}
            </button>
          ))}
        </div>
        {!loggedIn && game.types.realMode ? <p className="casino-chooser__hint">{t('casino.real_needs_login')}</p> : null}
        <button type="button" className="casino-chooser__close" onClick={onClose}>{t('casino.close')}</button>
      </div>
    </div>
  );
}

/** The full-screen launch frame; the game posts balance changes, the header follows. */
export function GameFrame({ game, url, mode, onClose }: { game: CasinoGame; url: string; mode: Mode; onClose: () => void }) {
  const t = useT();
  const dispatch = useAppDispatch();
  useEffect(() => {
    const timers: number[] = [];
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== window.location.origin) return;
      const kind = (event.data as { type?: string } | null)?.type;
      if (kind !== 'casino:balance' && kind !== 'casino:refresh') return;
      dispatch(balanceActions.refreshRequested());
      // The balance read model follows the wallet within moments: look again.
      timers.push(window.setTimeout(() => dispatch(balanceActions.refreshRequested()), 1200));
    };
    window.addEventListener('message', onMessage);
    return () => {
      window.removeEventListener('message', onMessage);
      timers.forEach((id) => window.clearTimeout(id));
      dispatch(balanceActions.refreshRequested());
    };
  }, [dispatch]);
  return (
    <div className="casino-frame" data-testid="casino-frame" data-mode={mode}>
      <div className="casino-frame__bar">
        <button type="button" className="casino-frame__close" data-testid="casino-frame-close" aria-label={t('casino.close')} onClick={onClose}>✕</button>
        <span className="casino-frame__name">{game.name} · {t(`casino.mode.${mode}`)}</span>
        {mode === 'real' && <Balance />}
      </div>
      <iframe className="casino-frame__game" src={url} title={game.name} data-testid="casino-iframe" allow="autoplay; fullscreen" />
    </div>
  );
}

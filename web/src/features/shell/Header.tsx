import { Suspense } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { Link, backHref, backKind, navigate, usePathname } from '../../app/router';
import { BackIcon, MenuIcon, RecordIcon, SearchIcon } from '../../components/icons';
import { historyActions } from '../history/historySlice';
import { Balance } from '../balance/Balance';
import { selectBrand, selectLogoUrl } from '../config/selectors';
import { useT } from '../i18n/useT';
import { sportActions } from '../sport/sportSlice';
import { Marquee } from '../content/Marquee';
import { ChunkBoundary } from './ChunkBoundary';
import { HeaderIcons } from './HeaderIcons';
import { uiActions } from './uiSlice';

const SearchOverlay = lazyRetry(() => import('../sport/SearchOverlay').then((m) => ({ default: m.SearchOverlay })));

/**
 * Header (spec 001 section 2.3): the home variant (menu trigger and logo) on '/', the back
 * variant elsewhere with the page's sport and competition text and a search icon.
 */
export function Header() {
  const t = useT();
  const dispatch = useAppDispatch();
  const pathname = usePathname();
  const brand = useAppSelector(selectBrand);
  const logoUrl = useAppSelector(selectLogoUrl);
  const title = useAppSelector((s) => s.sport.title);
  const searchOpen = useAppSelector((s) => s.sport.searchOpen);
  const back = backKind(pathname);
  const openSearch = () => dispatch(sportActions.searchOpened(true));

  return (
    <header className="header" data-variant={back ? 'back' : 'home'}>
      <div className="header__bar">
        {back ? (
          <>
            <button type="button" className="icon-btn" aria-label={t('header.back')} data-testid="back-button"
              onClick={() => navigate(backHref(pathname))}>
              <BackIcon />
            </button>
            <div className="header__title" data-testid="header-title">
              <strong>{title?.sport || brand}</strong>
              {title?.competition && <span>{title.competition}</span>}
            </div>
          </>
        ) : (
          <>
            <button type="button" className="icon-btn" aria-label={t('header.menu')} data-testid="menu-button"
              onClick={() => dispatch(uiActions.drawerToggled(true))}>
              <MenuIcon />
            </button>
            <Link href="/" className="header__logo" data-testid="brand">
              {logoUrl ? <img src={logoUrl} alt={brand} height={28} /> : <BrandMark brand={brand} />}
            </Link>
          </>
        )}
        <div className="header__right">
          {back && (
            <button type="button" className="icon-btn" aria-label={t('header.search')} data-testid="search-button" onClick={openSearch}>
              <SearchIcon />
            </button>
          )}
          <Balance />
          <HeaderIcons />
          <button type="button" className="icon-btn" aria-label={t('history.recent_title')} data-testid="record-button"
            onClick={() => dispatch(historyActions.panelToggled(true))}>
            <RecordIcon />
          </button>
          {back && (
            <button type="button" className="icon-btn" aria-label={t('header.menu')} data-testid="menu-button"
              onClick={() => dispatch(uiActions.drawerToggled(true))}>
              <MenuIcon />
            </button>
          )}
        </div>
      </div>
      <Marquee />
      {searchOpen && (
        <ChunkBoundary overlay onClose={() => dispatch(sportActions.searchOpened(false))}>
          <Suspense fallback={null}>
            <SearchOverlay />
          </Suspense>
        </ChunkBoundary>
      )}
    </header>
  );
}

/** Text logo: the brand with its first word highlighted. */
function BrandMark({ brand }: { brand: string }) {
  const [first = '', ...rest] = brand.split(' ');
  return (
    <span className="brand">
      <span className="brand__accent">{first}</span>
      {rest.length > 0 && <span className="brand__rest">{' ' + rest.join(' ')}</span>}
    </span>
  );
}

import { Suspense } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { isNativeApp } from '../../app/router';
import { BallIcon, SearchIcon } from '../../components/icons';
import { selectBrand } from '../config/selectors';
import { useT } from '../i18n/useT';
import { ChunkBoundary } from '../shell/ChunkBoundary';
import { sportActions } from '../sport/sportSlice';
import { IndexBanners } from '../content/ContentPages';

const HomeSport = lazyRetry(() => import('../sport/screens').then((m) => ({ default: m.HomeSport })));

/** Home: the banner (not in native-app mode), search, live now and upcoming highlights. */
export function Home() {
  const t = useT();
  const dispatch = useAppDispatch();
  const brand = useAppSelector(selectBrand);
  return (
    <div className="home" data-testid="home">
      {!isNativeApp() && (
        <section className="hero" data-testid="banner">
          <div className="hero__text">
            <p className="hero__eyebrow">{brand}</p>
            <h1 className="hero__title">{t('home.hero.title')}</h1>
            <p className="hero__subtitle">{t('home.hero.subtitle')}</p>
          </div>
          <BallIcon className="hero__ball" width={84} height={84} strokeWidth={1.2} />
        </section>
      )}
      <IndexBanners />
      <button type="button" className="home-search" data-testid="home-search" onClick={() => dispatch(sportActions.searchOpened(true))}>
        <SearchIcon width={18} height={18} />
        <span>{t('sport.search.placeholder')}</span>
      </button>
      <ChunkBoundary>
        <Suspense fallback={<div className="page-loading" aria-busy="true" />}>
          <HomeSport />
        </Suspense>
      </ChunkBoundary>
    </div>
  );
}

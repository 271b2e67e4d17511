import { useAppSelector } from '../../app/hooks';
import { BallIcon } from '../../components/icons';
import { selectBrand } from '../config/selectors';
import { useT } from '../i18n/useT';
import { EmptyState } from '../shell/EmptyState';

/** Home placeholder until the sportsbook lists arrive. */
export function Home() {
  const t = useT();
  const brand = useAppSelector(selectBrand);
  return (
    <div className="home" data-testid="home">
      <section className="hero">
        <div className="hero__text">
          <p className="hero__eyebrow">{brand}</p>
          <h1 className="hero__title">{t('home.hero.title')}</h1>
          <p className="hero__subtitle">{t('home.hero.subtitle')}</p>
        </div>
        <BallIcon className="hero__ball" width={84} height={84} strokeWidth={1.2} />
      </section>
      <section className="card">
        <h2 className="card__title">{t('home.popular')}</h2>
        <EmptyState />
      </section>
    </div>
  );
}

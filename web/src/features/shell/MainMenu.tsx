import { useAppSelector } from '../../app/hooks';
import { Link, menuItems, usePathname } from '../../app/router';
import { selectMainMenu } from '../config/selectors';
import { useT } from '../i18n/useT';

/** Section tabs in the configured main menu order. */
export function MainMenu() {
  const t = useT();
  const items = menuItems(useAppSelector(selectMainMenu));
  const current = usePathname().split('/')[1] ?? '';

  return (
    <nav className="main-menu" aria-label={t('menu.label')}>
      <Link href="/" className={current === '' ? 'main-menu__item is-active' : 'main-menu__item'}>
        {t('menu.home')}
      </Link>
      {items.map((item) => (
        <Link key={item} href={`/${item}`} className={current === item ? 'main-menu__item is-active' : 'main-menu__item'}>
          {item === 'live' && <span className="live-dot" aria-hidden="true" />}
          {t(`menu.${item}`)}
        </Link>
      ))}
      <Link href="/scores" className={current === 'scores' ? 'main-menu__item is-active' : 'main-menu__item'} data-testid="menu-scores">
        {t('menu.scores')}
      </Link>
    </nav>
  );
}

import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { MenuIcon } from '../../components/icons';
import { Balance } from '../balance/Balance';
import { selectBrand, selectLogoUrl } from '../config/selectors';
import { useT } from '../i18n/useT';
import { uiActions } from './uiSlice';

/** Home-variant header (spec section 2): menu trigger and logo on the left, balance or login on the right. */
export function Header() {
  const t = useT();
  const brand = useAppSelector(selectBrand);
  const logoUrl = useAppSelector(selectLogoUrl);
  const dispatch = useAppDispatch();

  return (
    <header className="header">
      <div className="header__bar">
        <button type="button" className="icon-btn" aria-label={t('header.menu')} data-testid="menu-button"
          onClick={() => dispatch(uiActions.drawerToggled(true))}>
          <MenuIcon />
        </button>
        <Link href="/" className="header__logo" data-testid="brand">
          {logoUrl ? <img src={logoUrl} alt={brand} height={28} /> : <BrandMark brand={brand} />}
        </Link>
        <div className="header__right">
          <Balance />
        </div>
      </div>
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

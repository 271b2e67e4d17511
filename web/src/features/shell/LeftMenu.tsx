import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { selectBalanceView } from '../balance/selectors';
import { selectBrand } from '../config/selectors';
import { LanguageSwitcher } from '../i18n/LanguageSwitcher';
import { useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { selectDisplayName, selectLoggedIn, selectProfile } from '../session/selectors';
import { sessionActions } from '../session/sessionSlice';
import { uiActions } from './uiSlice';

/**
 * Left menu (spec 001 section 2.4): login and register for guests; the member card and the
 * members' pages otherwise (user centre, season, tasks, honor hall, bet records). The season
 * and promotion pages have a Chinese and a non-Chinese path (spec 001 section 2.1).
 */
export function LeftMenu() {
  const t = useT();
  const lang = useAppSelector(selectLanguage);
  const dispatch = useAppDispatch();
  const open = useAppSelector((s) => s.ui.drawerOpen);
  const loggedIn = useAppSelector(selectLoggedIn);
  const name = useAppSelector(selectDisplayName);
  const profile = useAppSelector(selectProfile);
  const balance = useAppSelector(selectBalanceView);
  const brand = useAppSelector(selectBrand);
  if (!open) return null;
  const close = () => dispatch(uiActions.drawerToggled(false));
  const [first = '', ...rest] = brand.split(' ');

  return (
    <div className="drawer" role="dialog" aria-modal="true" aria-label={t('header.menu')} data-testid="left-menu">
      <button type="button" className="drawer__scrim" aria-label={t('common.close')} onClick={close} />
      <aside className="drawer__panel">
        {loggedIn ? (
          <div className="drawer__member">
            <div className="drawer__avatar" aria-hidden="true">{Array.from(name)[0]?.toUpperCase() ?? '?'}</div>
            <div className="drawer__who">
              <span className="drawer__name" data-testid="menu-nickname">{name}</span>
              <span className="drawer__vip" data-testid="menu-vip">{profile?.vipname ?? ''}</span>
              {profile?.vipexpbalance !== undefined && (
                <span className="drawer__exp" data-testid="menu-exp">{t('vip.experience')} {profile.vipexpbalance}</span>
              )}
            </div>
            <div className="drawer__balance">
              <span>{t('menu.total_balance')}</span>
              <strong data-testid="menu-balance">{balance ? `${balance.amount} ${balance.currency}` : '—'}</strong>
            </div>
            <Link href="/usercenter" className="btn btn--gold btn--block" onClick={close}>{t('menu.finance_center')}</Link>
          </div>
        ) : (
          <div className="drawer__guest">
            <div className="brand drawer__logo"><span className="brand__accent">{first}</span>
              {rest.length > 0 && <span className="brand__rest">{' ' + rest.join(' ')}</span>}</div>
            <button type="button" className="btn btn--gold btn--block" data-testid="menu-login"
              onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>{t('menu.member_login')}</button>
            <button type="button" className="btn btn--ghost btn--block" data-testid="menu-register"
              onClick={() => dispatch(uiActions.popupRequested({ name: 'register', step: 0 }))}>{t('menu.free_register')}</button>
          </div>
        )}
        {loggedIn && (
          <nav className="drawer__links">
            <Link href="/usercenter" onClick={close}>{t('usercenter.title')}</Link>
            <Link href="/usercenter/userinfo" onClick={close}>{t('userinfo.title')}</Link>
            <Link href="/hallofhonor" onClick={close} data-testid="menu-honor">{t('vip.title')}</Link>
            <Link href="/setting/changenickname" onClick={close}>{t('settings.change_nickname')}</Link>
            <Link href="/history/bets" onClick={close} data-testid="menu-bets">{t('history.title')}</Link>
            <Link href={lang === 'zhh' ? '/seasonMission' : '/seasonMissionEn'} onClick={close} data-testid="menu-season">{t('season.menu')}</Link>
            <Link href="/hometeam" onClick={close} data-testid="menu-hometeam">{t('hometeam.title')}</Link>
            <Link href="/novicetask" onClick={close} data-testid="menu-tasks">{t('promo.tasks')}</Link>
            <Link href="/prizedraw" onClick={close} data-testid="menu-draw">{t('promo.draw')}</Link>
            <Link href="/shop" onClick={close} data-testid="menu-shop">{t('promo.shop')}</Link>
            <Link href={lang === 'zhh' ? '/preferential' : '/preferentialin'} onClick={close} data-testid="menu-promotions">{t('promo.menu')}</Link>
            <Link href="/recommendedgift" onClick={close} data-testid="menu-referral">{t('promo.referral')}</Link>
            <button type="button" className="drawer__logout" data-testid="menu-logout"
              onClick={() => dispatch(sessionActions.logoutRequested())}>{t('menu.logout')}</button>
          </nav>
        )}
        <LanguageSwitcher />
      </aside>
    </div>
  );
}

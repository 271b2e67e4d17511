import { Suspense, useEffect, useState, type FormEvent } from 'react';
import { useStore } from 'react-redux';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { Link, navigate, usePathname } from '../../app/router';
import type { AppStore } from '../../app/store';
import { useT } from '../i18n/useT';
import { ChunkBoundary } from '../shell/ChunkBoundary';
import { backofficeActions as bo, selectBackoffice } from './backofficeSlice';
import { AuditPage } from './AuditPage';
import { OfferPage } from './OfferPage';
import { ErrorBox, Loading } from './parts';
import { QueuePage } from './QueuePage';
import { FinancePage } from './FinancePage';
import { ContentDesk } from './ContentDesk';
import { SeasonsPage } from './SeasonsPage';
import { SaferDesk } from './SaferDesk';
import { canUse, matchBackoffice, navFor, sectionPath, type BoSection } from './roles';
import { backofficeSaga } from './sagas';
import './backoffice.css';

/** The promotions desk: its own chunk, loaded when marketing opens it. */
const PromoDesk = lazyRetry(() => import('./PromoDesk').then((m) => ({ default: m.PromoDesk })));

/** /backoffice: the staff's own login, then what the role may use (docs/cashout-and-backoffice.md). */
export function BackofficeApp() {
  const store = useStore() as AppStore;
  const [running, setRunning] = useState(false);
  // the screens' own effects dispatch to the saga: they mount once it runs
  useEffect(() => {
    const task = store.runSaga(backofficeSaga);
    setRunning(true);
    return () => task.cancel();
  }, [store]);
  const auth = useAppSelector((s) => selectBackoffice(s).auth);
  return <div className="bo" data-testid="backoffice">{running && (auth ? <Shell /> : <LoginForm />)}</div>;
}

function LoginForm() {
  const t = useT();
  const dispatch = useAppDispatch();
  const { login, notice } = useAppSelector(selectBackoffice);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!username.trim() || !password) return;
    dispatch(bo.loginRequested({ username: username.trim(), password }));
  };
  return (
    <form className="bo-login" onSubmit={submit} noValidate data-testid="bo-login">
      <h1 className="bo-login__title">{t('bo.title')}</h1>
      <p className="bo-muted">{t('bo.login.title')}</p>
      {notice && <p className="bo-alert bo-alert--auth" role="status" data-testid="bo-login-notice">{t(notice)}</p>}
      <label className="bo-field">
        <span>{t('bo.username')}</span>
        <input name="username" autoComplete="username" value={username} data-testid="bo-username" onChange={(e) => setUsername(e.target.value)} />
        {touched && !username.trim() && <em className="bo-field__error">{t('validation.required')}</em>}
      </label>
      <label className="bo-field">
        <span>{t('bo.password')}</span>
        <input name="password" type="password" autoComplete="current-password" value={password} data-testid="bo-password"
          onChange={(e) => setPassword(e.target.value)} />
        {touched && !password && <em className="bo-field__error">{t('validation.required')}</em>}
      </label>
      <ErrorBox error={login.error} testId="bo-login-error" />
      <button type="submit" className="bo-btn bo-btn--primary" disabled={login.pending} data-testid="bo-login-submit">
        {login.pending ? t('common.please_wait') : t('bo.login.submit')}
      </button>
    </form>
  );
}

const NAV_KEYS: Record<BoSection, string> = { queue: 'bo.nav.queue', audit: 'bo.nav.audit', finance: 'bo.nav.finance', seasons: 'bo.nav.seasons', safer: 'bo.nav.safer', content: 'bo.nav.content', promo: 'bo.nav.promo' };

function Shell() {
  const t = useT();
  const dispatch = useAppDispatch();
  const pathname = usePathname();
  const auth = useAppSelector((s) => selectBackoffice(s).auth)!;
  const nav = navFor(auth.role);
  const route = matchBackoffice(pathname);
  const landing = route.section === null ? nav[0] : undefined;
  useEffect(() => {
    if (landing) navigate(sectionPath(landing), { replace: true });
  }, [landing]);
  return (
    <>
      <header className="bo-bar">
        <strong className="bo-bar__title">{t('bo.title')}</strong>
        <nav className="bo-bar__nav" aria-label={t('bo.title')}>
          {nav.map((section) => (
            <Link key={section} href={sectionPath(section)} data-testid={`bo-nav-${section}`}
              className={route.section === section ? 'bo-bar__link is-active' : 'bo-bar__link'}>{t(NAV_KEYS[section])}</Link>
          ))}
        </nav>
        <span className="bo-bar__who">
          <span data-testid="bo-user">{auth.username}</span>
          <span className="bo-role" data-testid="bo-role" data-role={auth.role}>{t(`bo.role.${auth.role}`)}</span>
        </span>
        <button type="button" className="bo-btn bo-btn--ghost" data-testid="bo-logout" onClick={() => dispatch(bo.logoutRequested())}>
          {t('bo.logout')}
        </button>
      </header>
      <main className="bo-main">
        <Section route={route} role={auth.role} empty={nav.length === 0} />
      </main>
    </>
  );
}

function Section({ route, role, empty }: { route: ReturnType<typeof matchBackoffice>; role: string; empty: boolean }) {
  const t = useT();
  if (route.section === 'unknown') return <p className="bo-alert bo-alert--notFound">{t('bo.not_found')}</p>;
  if (route.section === null) {
    return empty ? <p className="bo-alert bo-alert--forbidden" data-testid="bo-error-forbidden">{t('bo.forbidden')}</p> : null;
  }
  if (!canUse(role, route.section)) return <p className="bo-alert bo-alert--forbidden" role="alert" data-testid="bo-error-forbidden">{t('bo.forbidden')}</p>;
  if (route.section === 'queue') return route.betId ? <OfferPage betId={route.betId} /> : <QueuePage />;
  if (route.section === 'finance') return <FinancePage />;
  if (route.section === 'content') return <ContentDesk />;
  if (route.section === 'seasons') return <SeasonsPage />;
  if (route.section === 'safer') return <SaferDesk key={route.betId ?? ''} userId={route.betId} />;
  if (route.section === 'promo') return <ChunkBoundary><Suspense fallback={<Loading />}><PromoDesk /></Suspense></ChunkBoundary>;
  return <AuditPage betId={route.betId} />;
}

import { lazy, Suspense, useEffect } from 'react';
import { BootError } from '../features/shell/BootError';
import { EmptyState } from '../features/shell/EmptyState';
import { Header } from '../features/shell/Header';
import { LeftMenu } from '../features/shell/LeftMenu';
import { Loader } from '../features/shell/Loader';
import { MainMenu } from '../features/shell/MainMenu';
import { NoticeToast } from '../features/shell/Notice';
import { Popups } from '../features/shell/Popups';
import { Home } from '../features/home/Home';
import { configActions } from '../features/config/configSlice';
import { selectMainMenu } from '../features/config/selectors';
import { useT } from '../features/i18n/useT';
import { useAppDispatch, useAppSelector } from './hooks';
import { matchRoute, usePathname, type SettingPage } from './router';
import { selectAppReady, selectBootError } from './selectors';

const pages = () => import('../features/account/settings/SettingsPages');
const SETTING_COMPONENTS: Record<SettingPage, ReturnType<typeof lazy>> = {
  changenickname: lazy(() => pages().then((m) => ({ default: m.ChangeNickname }))),
  changelogin: lazy(() => pages().then((m) => ({ default: m.ChangeLoginPassword }))),
  changetrade: lazy(() => pages().then((m) => ({ default: m.ChangeTradePassword }))),
  setsecurity: lazy(() => pages().then((m) => ({ default: m.SetSecurityQuestion }))),
  phonebind: lazy(() => pages().then((m) => ({ default: m.PhoneBind }))),
  mailbind: lazy(() => pages().then((m) => ({ default: m.MailBind }))),
  changerealname: lazy(() => pages().then((m) => ({ default: m.ChangeRealName }))),
};
const UserCenter = lazy(() => pages().then((m) => ({ default: m.UserCenter })));
const UserInfoPage = lazy(() => pages().then((m) => ({ default: m.UserInfoPage })));

export function App() {
  const dispatch = useAppDispatch();
  const ready = useAppSelector(selectAppReady);
  const bootError = useAppSelector(selectBootError);
  const t = useT();

  useEffect(() => {
    dispatch(configActions.loadRequested());
  }, [dispatch]);

  if (bootError) return <BootError error={bootError} />;
  if (!ready) return <Loader label={t('app.loading')} />;
  return (
    <div className="app">
      <Header />
      <MainMenu />
      <main className="content">
        <Suspense fallback={<div className="page-loading" aria-busy="true" />}>
          <Page />
        </Suspense>
      </main>
      <LeftMenu />
      <Popups />
      <NoticeToast />
    </div>
  );
}

function Page() {
  const route = matchRoute(usePathname(), useAppSelector(selectMainMenu));
  switch (route.page) {
    case 'home':
      return <Home />;
    case 'section':
      return <EmptyState />;
    case 'setting': {
      const Component = SETTING_COMPONENTS[route.name];
      return <Component />;
    }
    case 'usercenter':
      return <UserCenter />;
    case 'userinfo':
      return <UserInfoPage />;
    case 'notFound':
      return <EmptyState textKey="empty.page_not_found" />;
  }
}

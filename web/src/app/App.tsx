import { lazy, Suspense, useEffect } from 'react';
import { BootError } from '../features/shell/BootError';
import { EmptyState } from '../features/shell/EmptyState';
import { Header } from '../features/shell/Header';
import { LeftMenu } from '../features/shell/LeftMenu';
import { Loader } from '../features/shell/Loader';
import { MainMenu } from '../features/shell/MainMenu';
import { NoticeToast } from '../features/shell/Notice';
import { Popups } from '../features/shell/Popups';
import { Footer } from '../features/shell/Footer';
import { BetslipLauncher } from '../features/betslip/BetslipLauncher';
import { WinningTips } from '../features/realtime/WinningTips';
import { LiveChat } from '../features/livechat/LiveChat';
import { DownloadBanner, RuntimePopups } from '../features/content/RuntimePopups';
import { configActions } from '../features/config/configSlice';
import { selectMainMenu } from '../features/config/selectors';
import { useT } from '../features/i18n/useT';
import { useAppDispatch, useAppSelector } from './hooks';
import { isNativeApp, matchRoute, usePathname, useScrollTopOnPathChange, type SettingPage } from './router';
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
// Route screens load on first use: the first-load bundle stays small.
const sport = () => import('../features/sport/screens');
const Home = lazy(() => import('../features/home/Home').then((m) => ({ default: m.Home })));
const SportPage = lazy(() => sport().then((m) => ({ default: m.SportPage })));
const GamePage = lazy(() => sport().then((m) => ({ default: m.GamePage })));
const ScoresPage = lazy(() => sport().then((m) => ({ default: m.ScoresPage })));
const UserCenter = lazy(() => pages().then((m) => ({ default: m.UserCenter })));
const UserInfoPage = lazy(() => pages().then((m) => ({ default: m.UserInfoPage })));
const history = () => import('../features/history/HistoryPages');
const HistoryBetsPage = lazy(() => history().then((m) => ({ default: m.HistoryBetsPage })));
const HistoryBetPage = lazy(() => history().then((m) => ({ default: m.HistoryBetPage })));
const BetRecordPanel = lazy(() => history().then((m) => ({ default: m.BetRecordPanel })));
const MessagesPage = lazy(() => import('../features/messages/MessagesPage').then((m) => ({ default: m.MessagesPage })));
const HallOfHonor = lazy(() => import('../features/vip/HallPages').then((m) => ({ default: m.HallOfHonor })));
const CasinoPage = lazy(() => import('../features/casino/CasinoPage').then((m) => ({ default: m.CasinoPage })));
const PaymentRoute = lazy(() => import('../features/payments/PaymentRoute').then((m) => ({ default: m.PaymentRoute })));
// The staff back office: its own chunk, its own login, none of the member shell.
const seasons = () => import('../features/seasons/SeasonPages');
const SeasonPage = lazy(() => seasons().then((m) => ({ default: m.SeasonPage })));
const HomeTeamPage = lazy(() => seasons().then((m) => ({ default: m.HomeTeamPage })));
const content = () => import('../features/content/ContentPages');
const NewsList = lazy(() => content().then((m) => ({ default: m.NewsList })));
const NewsDetail = lazy(() => content().then((m) => ({ default: m.NewsDetail })));
const HelpCenter = lazy(() => content().then((m) => ({ default: m.HelpCenter })));
const HelpPage = lazy(() => content().then((m) => ({ default: m.HelpPage })));
const DownPage = lazy(() => content().then((m) => ({ default: m.DownPage })));
const BackofficeApp = lazy(() => import('../features/backoffice/BackofficeApp').then((m) => ({ default: m.BackofficeApp })));

/** Pages that show the floating betslip button (spec 001 section 2.4: the betslip on sport pages). */
const SLIP_PAGES = ['home', 'sport', 'game'];

export function App() {
  const dispatch = useAppDispatch();
  const ready = useAppSelector(selectAppReady);
  const bootError = useAppSelector(selectBootError);
  const t = useT();
  const pathname = usePathname();
  const menu = useAppSelector(selectMainMenu);
  const recordPanel = useAppSelector((s) => s.history.panelOpen);
  useScrollTopOnPathChange();

  useEffect(() => {
    dispatch(configActions.loadRequested());
  }, [dispatch]);

  if (bootError) return <BootError error={bootError} />;
  if (!ready) return <Loader label={t('app.loading')} />;
  if (matchRoute(pathname, menu).page === 'backoffice') {
    return (
      <Suspense fallback={<Loader label={t('app.loading')} />}>
        <BackofficeApp />
      </Suspense>
    );
  }
  const nativeApp = isNativeApp();
  return (
    <div className={nativeApp ? 'app app--native' : 'app'}>
      {!nativeApp && <DownloadBanner />}
      {!nativeApp && <Header />}
      <MainMenu />
      <main className="content">
        <Suspense fallback={<div className="page-loading" aria-busy="true" />}>
          <Page />
        </Suspense>
      </main>
      <Footer />
      <LeftMenu />
      {recordPanel && (
        <Suspense fallback={null}>
          <BetRecordPanel />
        </Suspense>
      )}
      <BetslipLauncher visible={SLIP_PAGES.includes(matchRoute(pathname, menu).page)} />
      <Popups />
      <RuntimePopups />
      <WinningTips />
      <LiveChat floating={!nativeApp} />
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
    case 'sport':
      return <SportPage key={`${route.section}/${route.esportsType ?? ''}`} {...route} />;
    case 'game':
      return <GamePage key={route.gameId} gameId={route.gameId} />;
    case 'scores':
      return <ScoresPage id={route.id} />;
    case 'setting': {
      const Component = SETTING_COMPONENTS[route.name];
      return <Component />;
    }
    case 'usercenter':
      return <UserCenter />;
    case 'userinfo':
      return <UserInfoPage />;
    case 'historyBets':
      return <HistoryBetsPage />;
    case 'historyBet':
      return <HistoryBetPage id={route.id} />;
    case 'messages':
      return <MessagesPage />;
    case 'news':
      return <NewsList />;
    case 'newsDetail':
      return <NewsDetail key={route.id} id={route.id} />;
    case 'helpcenter':
      return <HelpCenter />;
    case 'helpPage':
      return <HelpPage key={`${route.lang}/${route.slug}`} lang={route.lang} slug={route.slug} />;
    case 'downpage':
      return <DownPage />;
    case 'honor':
      return <HallOfHonor sub={route.sub} />;
    case 'casino':
      return <CasinoPage key={`${route.section}/${route.type ?? ''}`} section={route.section} type={route.type} />;
    case 'season':
      return <SeasonPage key={route.path} path={route.path} />;
    case 'homeTeam':
      return <HomeTeamPage />;
    case 'payments':
      return <PaymentRoute name={route.name} />;
    case 'backoffice': // drawn by App without the member shell
    case 'notFound':
      return <EmptyState textKey="empty.page_not_found" />;
  }
}

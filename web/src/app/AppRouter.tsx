/**
 * The browser router: react-router's declarative router (`BrowserRouter`, `useRoutes`) over
 * the route table (app/routes.ts). Every feature's screens are a lazy route (a React.lazy
 * chunk per feature), so the first load carries only the shell. The member shell (header,
 * menus, footer, betslip) is the layout route; the staff back office has its own branch
 * without it. (The data router, `createBrowserRouter`, costs about 30 KB gzipped against
 * about 11 KB for this mode: over the first-load budget.)
 */
import { Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { BrowserRouter, Outlet, useLocation, useNavigate, useParams, useRoutes, type RouteObject } from 'react-router';
import { BetslipLauncher } from '../features/betslip/BetslipLauncher';
import { selectMainMenu } from '../features/config/selectors';
import { historyActions } from '../features/history/historySlice';
import { LiveChat } from '../features/livechat/LiveChat';
import { WinningTips } from '../features/realtime/WinningTips';
import { EmptyState } from '../features/shell/EmptyState';
import { Footer } from '../features/shell/Footer';
import { Header } from '../features/shell/Header';
import { MainMenu } from '../features/shell/MainMenu';
import { NoticeToast } from '../features/shell/Notice';
import { ChunkBoundary } from '../features/shell/ChunkBoundary';
import { Popups } from '../features/shell/Popups';
import { uiActions } from '../features/shell/uiSlice';
import { useAppDispatch, useAppSelector } from './hooks';
import { lazyRetry } from './lazyRetry';
import { isNativeApp, matchRoute, setActiveNavigate, usePathname, useScrollTopOnPathChange } from './router';
import { ROUTE_TABLE, type Route, type RouteSpec, type Screen } from './routes';

type Render = (route: Route) => ReactNode;

/** The fallback page: 'Page not found' (spec 001 section 2.1, any other path). */
export function NotFound() {
  return <EmptyState textKey="empty.page_not_found" />;
}

/** Each feature chunk and how it draws the routes it owns. */
const RENDERERS: Record<Exclude<Screen, 'fallback'>, () => Promise<Render>> = {
  home: () => import('../features/home/Home').then((m) => () => <m.Home />),
  sport: () => import('../features/sport/screens').then((m) => (r) => {
    if (r.page === 'sport') return <m.SportPage key={`${r.section}/${r.esportsType ?? ''}`} {...r} />;
    if (r.page === 'game') return <m.GamePage key={r.gameId} gameId={r.gameId} />;
    if (r.page === 'special') return <m.SpecialEventPage name={r.name} />;
    return r.page === 'scores' ? <m.ScoresPage id={r.id} /> : null;
  }),
  account: () => import('../features/account/settings/screens').then((m) => (r) => <m.AccountScreen route={r} />),
  history: () => import('../features/history/HistoryPages').then((m) => (r) =>
    r.page === 'historyBet' ? <m.HistoryBetPage id={r.id} /> : r.page === 'betdata' ? <m.BetDataPage /> : <m.HistoryBetsPage />),
  messages: () => import('../features/messages/MessagesPage').then((m) => () => <m.MessagesPage />),
  vip: () => import('../features/vip/HallPages').then((m) => (r) => (r.page === 'honor' ? <m.HallOfHonor sub={r.sub} /> : null)),
  casino: () => import('../features/casino/CasinoPage').then((m) => (r) =>
    r.page !== 'casino' ? null : r.section === 'demo' ? <m.DemoGamesPage />
      : <m.CasinoPage key={`${r.section}/${r.type ?? ''}`} section={r.section} type={r.type} />),
  seasons: () => import('../features/seasons/SeasonPages').then((m) => (r) => {
    if (r.page === 'season') return <m.SeasonPage key={r.path} path={r.path} />;
    if (r.page === 'homeTeam') return <m.HomeTeamPage />;
    return r.page === 'section' ? <EmptyState /> : null;
  }),
  payments: () => import('../features/payments/PaymentRoute').then((m) => (r) => (r.page === 'payments' ? <m.PaymentRoute name={r.name} /> : null)),
  content: () => import('../features/content/ContentPages').then((m) => (r) => {
    if (r.page === 'news') return <m.NewsList />;
    if (r.page === 'newsDetail') return <m.NewsDetail key={r.id} id={r.id} />;
    if (r.page === 'helpcenter') return <m.HelpCenter />;
    if (r.page === 'helpPage') return <m.HelpPage key={`${r.lang}/${r.slug}`} lang={r.lang} slug={r.slug} />;
    return r.page === 'downpage' ? <m.DownPage /> : null;
  }),
  promo: () => import('../features/promo/PromoPages').then((m) => (r) => (r.page === 'promo' ? <m.PromoRoutePage route={r.route} /> : null)),
  backoffice: () => import('../features/backoffice/BackofficeApp').then((m) => () => <m.BackofficeApp />),
};

type ScreenComponent = ComponentType<{ route: Route }>;
/** One lazy chunk per feature: a component drawing any route the feature owns. */
const SCREENS = Object.fromEntries(Object.entries(RENDERERS).map(([screen, load]) => [
  screen,
  lazyRetry(() => load().then((render) => ({ default: ({ route }: { route: Route }) => render(route) }))),
])) as unknown as Record<Exclude<Screen, 'fallback'>, ScreenComponent>;

/**
 * A route of the table: resolves its parameters (out of range: the fallback page) and draws
 * the feature's screen. The screen stays mounted across its routes; an error goes with the location.
 */
function RouteScreen({ spec }: { spec: RouteSpec }) {
  const route = spec.resolve(useParams(), useAppSelector(selectMainMenu));
  const { pathname, search } = useLocation();
  if (route.page === 'notFound' || spec.screen === 'fallback') return <NotFound />;
  const Screen = SCREENS[spec.screen];
  return (
    <ChunkBoundary key={spec.screen} resetKey={pathname + search}>
      <Suspense fallback={<div className="page-loading" aria-busy="true" />}>
        <Screen route={route} />
      </Suspense>
    </ChunkBoundary>
  );
}

const routeObject = (spec: RouteSpec): RouteObject => ({
  path: spec.path, caseSensitive: true, handle: spec, element: <RouteScreen spec={spec} />,
});

/** Pages that show the floating betslip button (spec 001 section 2.4: the betslip on sport pages). */
const SLIP_PAGES = ['home', 'sport', 'game', 'special'];
const BetRecordPanel = lazyRetry(() => import('../features/history/HistoryPages').then((m) => ({ default: m.BetRecordPanel })));
// Runtime popups and the download banner (features/content) load after the first paint.
const runtime = () => import('../features/content/RuntimePopups');
const DownloadBanner = lazyRetry(() => runtime().then((m) => ({ default: m.DownloadBanner })));
const RuntimePopups = lazyRetry(() => runtime().then((m) => ({ default: m.RuntimePopups })));
// The left menu loads when first opened (first-load bundle budget).
const LeftMenu = lazyRetry(() => import('../features/shell/LeftMenu').then((m) => ({ default: m.LeftMenu })));

/** The member shell around every member page (spec 001 sections 2.3 and 2.4). */
function Shell() {
  const dispatch = useAppDispatch();
  const pathname = usePathname();
  const menu = useAppSelector(selectMainMenu);
  const recordPanel = useAppSelector((s) => s.history.panelOpen);
  const drawer = useAppSelector((s) => s.ui.drawerOpen);
  const nativeApp = isNativeApp();
  return (
    <div className={nativeApp ? 'app app--native' : 'app'}>
      {!nativeApp && (
        <ChunkBoundary silent>
          <Suspense fallback={null}>
            <DownloadBanner />
          </Suspense>
        </ChunkBoundary>
      )}
      {!nativeApp && <Header />}
      <MainMenu />
      <main className="content">
        <Outlet />
      </main>
      <Footer />
      {drawer && (
        <ChunkBoundary overlay onClose={() => dispatch(uiActions.drawerToggled(false))}>
          <Suspense fallback={null}>
            <LeftMenu />
          </Suspense>
        </ChunkBoundary>
      )}
      {recordPanel && (
        <ChunkBoundary overlay onClose={() => dispatch(historyActions.panelToggled(false))}>
          <Suspense fallback={null}>
            <BetRecordPanel />
          </Suspense>
        </ChunkBoundary>
      )}
      <BetslipLauncher visible={SLIP_PAGES.includes(matchRoute(pathname, menu).page)} />
      <Popups />
      <ChunkBoundary silent>
        <Suspense fallback={null}>
          <RuntimePopups />
        </Suspense>
      </ChunkBoundary>
      <WinningTips />
      <LiveChat floating={!nativeApp} />
      <NoticeToast />
    </div>
  );
}

const BACKOFFICE = ROUTE_TABLE.filter((spec) => spec.screen === 'backoffice');
/** The whole config: the back office on its own, every other route inside the member shell. */
export const ROUTES: RouteObject[] = [
  ...BACKOFFICE.map(routeObject),
  { element: <Shell />, children: ROUTE_TABLE.filter((spec) => spec.screen !== 'backoffice').map(routeObject) },
];

/**
 * Lets `navigate` (app/router.tsx) drive the router from sagas and plain functions, and
 * scrolls to the top (300 ms) on every path change, back office included.
 */
function NavigateBridge() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  useScrollTopOnPathChange();
  useEffect(() => {
    setActiveNavigate(navigate);
    return () => setActiveNavigate(null);
  }, [navigate, pathname]);
  return null;
}

function Routes() {
  return useRoutes(ROUTES);
}

export function AppRouter() {
  return (
    <BrowserRouter>
      <NavigateBridge />
      <Routes />
    </BrowserRouter>
  );
}

import { useEffect } from 'react';
import { BootError } from '../features/shell/BootError';
import { EmptyState } from '../features/shell/EmptyState';
import { Header } from '../features/shell/Header';
import { Loader } from '../features/shell/Loader';
import { MainMenu } from '../features/shell/MainMenu';
import { Home } from '../features/home/Home';
import { configActions } from '../features/config/configSlice';
import { selectMainMenu } from '../features/config/selectors';
import { useT } from '../features/i18n/useT';
import { useAppDispatch, useAppSelector } from './hooks';
import { matchRoute, usePathname } from './router';
import { selectAppReady, selectBootError } from './selectors';

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
        <Page />
      </main>
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
    case 'notFound':
      return <EmptyState textKey="empty.page_not_found" />;
  }
}

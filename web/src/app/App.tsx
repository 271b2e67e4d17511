import { useEffect } from 'react';
import { BootError } from '../features/shell/BootError';
import { Loader } from '../features/shell/Loader';
import { configActions } from '../features/config/configSlice';
import { useBootT } from '../features/i18n/useT';
import { AppRouter } from './AppRouter';
import { useAppDispatch, useAppSelector } from './hooks';
import { selectAppReady, selectBootError } from './selectors';

/** Boot (configuration, API token, language file), then the router (app/AppRouter.tsx). */
export function App() {
  const dispatch = useAppDispatch();
  const ready = useAppSelector(selectAppReady);
  const bootError = useAppSelector(selectBootError);
  const t = useBootT(); // drawn before the language (and i18next) has loaded

  useEffect(() => {
    dispatch(configActions.loadRequested());
  }, [dispatch]);

  if (bootError) return <BootError error={bootError} />;
  if (!ready) return <Loader label={t('app.loading')} />;
  return <AppRouter />;
}

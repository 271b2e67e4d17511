import { useCallback, useSyncExternalStore } from 'react';
import { useStore } from 'react-redux';
import type { Saga } from 'redux-saga';
import type { AppStore } from './store';

/** How many mounted components run each saga. */
const running = new Map<Saga, number>();

/**
 * Runs `saga` while the component is mounted (cancelled on unmount) and answers `true` once it
 * runs, so children that dispatch on mount render only then. The running saga is an external
 * system the component subscribes to (`useSyncExternalStore`), not state set in an effect.
 */
export function useSaga(saga: Saga): boolean {
  const store = useStore() as AppStore;
  const subscribe = useCallback(
    (notify: () => void) => {
      const task = store.runSaga(saga);
      running.set(saga, (running.get(saga) ?? 0) + 1);
      notify();
      return () => {
        task.cancel();
        running.set(saga, (running.get(saga) ?? 1) - 1);
      };
    },
    [store, saga],
  );
  return useSyncExternalStore(subscribe, () => (running.get(saga) ?? 0) > 0, () => false);
}

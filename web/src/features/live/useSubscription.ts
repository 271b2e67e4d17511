import { useEffect, useMemo } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { liveActions, queryKey, type SwarmQuery } from './liveSlice';

/**
 * Subscribes while mounted and returns the live data (pushes merged in). Components
 * using the same query share one subscription.
 */
export function useSubscription<T>(query: SwarmQuery | null): { data: T | null; status: 'new' | 'pending' | 'ready' | 'error' } {
  const dispatch = useAppDispatch();
  const key = query ? queryKey(query) : null;
  // The key carries the query: rebuild it only when the key changes.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableQuery = useMemo(() => query, [key]);
  useEffect(() => {
    if (!key || !stableQuery) return;
    dispatch(liveActions.subscribeRequested({ key, query: stableQuery }));
    return () => {
      dispatch(liveActions.unsubscribeRequested({ key }));
    };
  }, [dispatch, key, stableQuery]);
  const sub = useAppSelector((s) => (key ? s.live.subs[key] : undefined));
  return { data: (sub?.data as T | undefined) ?? null, status: sub?.status ?? 'new' };
}

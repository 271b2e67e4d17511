import { useEffect } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { sportActions } from './sportSlice';

/** Sets the sport and competition text of the back-variant header while mounted. */
export function usePageTitle(sport: string, competition = '') {
  const dispatch = useAppDispatch();
  useEffect(() => {
    dispatch(sportActions.titleSet(sport || competition ? { sport, competition } : null));
  }, [dispatch, sport, competition]);
  useEffect(() => () => void dispatch(sportActions.titleSet(null)), [dispatch]);
}

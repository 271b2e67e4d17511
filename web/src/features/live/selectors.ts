import type { RootState } from '../../app/store';

export const selectConnection = (state: RootState) => state.live.connection;
/** Live data flows (socket or long-poll). */
export const selectLiveUp = (state: RootState) => state.live.connection === 'open' || state.live.connection === 'polling';
export const selectSubscription = (key: string) => (state: RootState) => state.live.subs[key];

import type { RootState } from './store';

/** Ready only after the configuration and the language file have loaded (spec section 2). */
export const selectAppReady = (state: RootState) =>
  state.config.status === 'loaded' && state.i18n.status === 'loaded';

export const selectBootError = (state: RootState) => state.config.error ?? state.i18n.error;

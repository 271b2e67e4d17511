import type { RootState } from '../../app/store';
import { LOGGED_IN, LOGGING_IN } from './types';

export const selectLoginState = (state: RootState) => state.session.loginState;
export const selectLoggedIn = (state: RootState) => state.session.loginState === LOGGED_IN;
export const selectLoggingIn = (state: RootState) => state.session.loginState === LOGGING_IN;
export const selectAuth = (state: RootState) => state.session.auth;
export const selectLoginError = (state: RootState) => state.session.loginError;
export const selectCaptchaNonce = (state: RootState) => state.session.captchaNonce;
export const selectSafety = (state: RootState) => state.session.safety;
export const selectServerConfig = (state: RootState) => state.session.serverConfig;
export const selectCountries = (state: RootState) => state.session.countries;
export const selectProfile = (state: RootState) => state.session.profile;
/** Nickname when set, else the username. */
export const selectDisplayName = (state: RootState) =>
  state.session.profile?.nickname || state.session.profile?.username || state.session.auth?.username || '';

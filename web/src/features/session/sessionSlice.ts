import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';
import {
  LOGGED_IN, LOGGED_OUT, LOGGING_IN, type AuthData, type CountryCode, type LoginAnswer, type LoginState,
  type SafetyInfo, type ServerConfig, type UserInfo,
} from './types';

export interface LoginRequest {
  username: string;
  password: string;
  validateCode: string;
  uid: string;
  remember: boolean;
}

export interface SessionState {
  loginState: LoginState;
  auth: AuthData | null;
  /** The last login failure, shown in the login popup. */
  loginError: ErrorInfo | null;
  /** Bumped after a failed login: the captcha image refreshes. */
  captchaNonce: number;
  /** Set by a -10010 answer: the device must be verified. */
  safety: SafetyInfo | null;
  serverConfig: ServerConfig | null;
  countries: CountryCode[];
  profile: UserInfo | null;
}

const initialState: SessionState = {
  loginState: LOGGED_OUT,
  auth: null,
  loginError: null,
  captchaNonce: 0,
  safety: null,
  serverConfig: null,
  countries: [],
  profile: null,
};

const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    loginRequested(state, _action: PayloadAction<LoginRequest>) {
      state.loginState = LOGGING_IN;
      state.loginError = null;
    },
    /** Login, registration, restore or partner mode: the member is in. */
    loggedIn(state, action: PayloadAction<{ auth: AuthData; session: string }>) {
      state.loginState = LOGGED_IN;
      state.auth = action.payload.auth;
      state.loginError = null;
      state.safety = null;
    },
    loginFailed(state, action: PayloadAction<ErrorInfo>) {
      state.loginState = LOGGED_OUT;
      state.loginError = action.payload;
      state.captchaNonce += 1;
    },
    safetyRequired(state, action: PayloadAction<SafetyInfo>) {
      state.loginState = LOGGED_OUT;
      state.safety = action.payload;
      state.captchaNonce += 1;
    },
    renewed(state, action: PayloadAction<number>) {
      if (state.auth) state.auth.expires = action.payload;
    },
    logoutRequested() {},
    /** -601 in any answer. */
    expired() {},
    loggedOut(state) {
      state.loginState = LOGGED_OUT;
      state.auth = null;
      state.profile = null;
    },
    serverConfigLoaded(state, action: PayloadAction<ServerConfig>) {
      state.serverConfig = action.payload;
    },
    countriesLoaded(state, action: PayloadAction<CountryCode[]>) {
      state.countries = action.payload;
    },
    profileRequested() {},
    profileLoaded(state, action: PayloadAction<UserInfo>) {
      state.profile = action.payload;
    },
    clearLoginError(state) {
      state.loginError = null;
    },
  },
});

export const sessionActions = sessionSlice.actions;
export default sessionSlice.reducer;
export type { LoginAnswer };

import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';

/** A language file: flat key -> text, placeholders written {1}, {2} ... */
export type Strings = Record<string, string>;

export interface I18nState {
  lang: string | null;
  status: 'idle' | 'loading' | 'loaded' | 'failed';
  strings: Strings;
  error: ErrorInfo | null;
  /** The language the member chose; the page reloads in it 500 ms later (spec 000 section 9). */
  switchingTo?: string | null;
}

const initialState: I18nState = { lang: null, status: 'idle', strings: {}, error: null, switchingTo: null };

const i18nSlice = createSlice({
  name: 'i18n',
  initialState,
  reducers: {
    loadRequested(state, action: PayloadAction<string>) {
      state.lang = action.payload;
      state.status = 'loading';
      state.error = null;
    },
    loaded(state, action: PayloadAction<{ lang: string; strings: Strings }>) {
      state.lang = action.payload.lang;
      state.strings = action.payload.strings;
      state.status = 'loaded';
    },
    /** The language switcher: remembered, then the page reloads in it (features/i18n/sagas.ts). */
    switchRequested(state, action: PayloadAction<string>) {
      if (action.payload !== state.lang) state.switchingTo = action.payload;
    },
    /** A language the skin does not offer: nothing happens. */
    switchDropped(state) {
      state.switchingTo = null;
    },
    failed(state, action: PayloadAction<ErrorInfo>) {
      state.status = 'failed';
      state.error = action.payload;
    },
  },
});

export const i18nActions = i18nSlice.actions;
export default i18nSlice.reducer;

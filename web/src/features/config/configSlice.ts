import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';
import type { SiteConfig } from './types';

export interface ConfigState {
  status: 'idle' | 'loading' | 'loaded' | 'failed';
  conf: SiteConfig | null;
  error: ErrorInfo | null;
}

const initialState: ConfigState = { status: 'idle', conf: null, error: null };

const configSlice = createSlice({
  name: 'config',
  initialState,
  reducers: {
    /** Starts (or retries) the boot: configuration, then the language file. */
    loadRequested(state) {
      state.status = 'loading';
      state.error = null;
    },
    loaded(state, action: PayloadAction<SiteConfig>) {
      state.status = 'loaded';
      state.conf = action.payload;
    },
    failed(state, action: PayloadAction<ErrorInfo>) {
      state.status = 'failed';
      state.error = action.payload;
    },
  },
});

export const configActions = configSlice.actions;
export default configSlice.reducer;

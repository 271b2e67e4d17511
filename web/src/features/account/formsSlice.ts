import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';

/** A checkcode a form runs first; its data.uid goes into params[uidField]. */
export interface Verify { params: Record<string, unknown>; uidField: string }

/** What a form submits: one call, optionally preceded by checkcodes whose uids it carries. */
export interface FormRequest {
  /** The form's id in the store ('register', 'nickname', 'sendcode:register' ...). */
  id: string;
  path: string;
  params: Record<string, unknown>;
  /** checkcode first (in order, when several); each data.uid goes into params[uidField]. */
  verify?: Verify | Verify[];
  /** After success: log in with the answer (registration), or reload the profile. */
  after?: 'register' | 'profile';
}

export interface FormState {
  status: 'idle' | 'pending' | 'done' | 'failed';
  error: ErrorInfo | null;
  data: unknown;
  /** Bumped on every success: components react to a fresh result, not a stale one. */
  successes: number;
}

export const IDLE_FORM: FormState = { status: 'idle', error: null, data: null, successes: 0 };

const formsSlice = createSlice({
  name: 'forms',
  initialState: {} as Record<string, FormState>,
  reducers: {
    submitted(state, action: PayloadAction<FormRequest>) {
      const prev = state[action.payload.id] ?? IDLE_FORM;
      state[action.payload.id] = { ...prev, status: 'pending', error: null };
    },
    succeeded(state, action: PayloadAction<{ id: string; data: unknown }>) {
      const prev = state[action.payload.id] ?? IDLE_FORM;
      state[action.payload.id] = { status: 'done', error: null, data: action.payload.data, successes: prev.successes + 1 };
    },
    failed(state, action: PayloadAction<{ id: string; error: ErrorInfo }>) {
      const prev = state[action.payload.id] ?? IDLE_FORM;
      state[action.payload.id] = { ...prev, status: 'failed', error: action.payload.error };
    },
    reset(state, action: PayloadAction<string>) {
      delete state[action.payload];
    },
  },
});

export const formsActions = formsSlice.actions;
export default formsSlice.reducer;

import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

export type PopupName =
  | 'login'
  | 'register'
  | 'registerSuccess'
  | 'forgot'
  | 'safetyConfirm'
  | 'safety'
  | 'emailConfirm';

export interface Notice {
  kind: 'info' | 'warning';
  /** A language-file key, or '' with `text` (a server message). */
  key: string;
  args?: Array<string | number>;
  text?: string;
  /** How long it stays (default NOTICE_MS). */
  ms?: number;
}

export interface UiState {
  popup: PopupName | null;
  /** Registration variant: 0 phone, 1 e-mail, 2 username. */
  registerStep: 0 | 1 | 2;
  /** E-mail confirmation result from #action=verify. */
  emailConfirmed: boolean;
  drawerOpen: boolean;
  notice: Notice | null;
}

const initialState: UiState = { popup: null, registerStep: 0, emailConfirmed: false, drawerOpen: false, notice: null };

const uiSlice = createSlice({
  name: 'ui',
  initialState,
  reducers: {
    /** What buttons dispatch; the session saga decides (a member asking to log in reloads). */
    popupRequested(_state, _action: PayloadAction<{ name: PopupName; step?: 0 | 1 | 2 }>) {},
    popupOpened(state, action: PayloadAction<{ name: PopupName; step?: 0 | 1 | 2 }>) {
      state.popup = action.payload.name;
      if (action.payload.step !== undefined) state.registerStep = action.payload.step;
      state.drawerOpen = false;
    },
    popupClosed(state) {
      state.popup = null;
    },
    registerStepChosen(state, action: PayloadAction<0 | 1 | 2>) {
      state.registerStep = action.payload;
    },
    emailConfirmShown(state, action: PayloadAction<boolean>) {
      state.emailConfirmed = action.payload;
      state.popup = 'emailConfirm';
    },
    drawerToggled(state, action: PayloadAction<boolean>) {
      state.drawerOpen = action.payload;
    },
    notified(state, action: PayloadAction<Notice>) {
      state.notice = action.payload;
    },
    noticeDismissed(state) {
      state.notice = null;
    },
  },
});

export const uiActions = uiSlice.actions;
export default uiSlice.reducer;

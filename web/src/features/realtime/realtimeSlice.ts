import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** Winning-tip notification types (spec 000 section 9). */
export const TIP_TYPES = [1000, 1001, 1002, 1003, 1004, 1005, 1010];
export const WIN_TIP = 1004;

export interface Tip {
  id: number;
  type: number;
  data: Record<string, unknown>;
}

export interface RealtimeState {
  connected: boolean;
  clientId: string | null;
  /** The client id bound to the member with user/bindws. */
  boundId: string | null;
  tips: Tip[];
}

const initialState: RealtimeState = { connected: false, clientId: null, boundId: null, tips: [] };
let nextTip = 0;

const realtimeSlice = createSlice({
  name: 'realtime',
  initialState,
  reducers: {
    connected(state, action: PayloadAction<boolean>) {
      state.connected = action.payload;
      if (!action.payload) {
        state.clientId = null;
        state.boundId = null;
      }
    },
    clientIdReceived(state, action: PayloadAction<string>) {
      state.clientId = action.payload;
    },
    bound(state, action: PayloadAction<string | null>) {
      state.boundId = action.payload;
    },
    tipReceived: {
      reducer(state, action: PayloadAction<Tip>) {
        state.tips.push(action.payload);
      },
      prepare: (tip: Omit<Tip, 'id'>) => ({ payload: { ...tip, id: ++nextTip } }),
    },
    tipDismissed(state, action: PayloadAction<number>) {
      state.tips = state.tips.filter((t) => t.id !== action.payload);
    },
  },
});

export const realtimeActions = realtimeSlice.actions;
export default realtimeSlice.reducer;

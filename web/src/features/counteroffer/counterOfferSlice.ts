/**
 * The member's answer to a counter offer (spec 000 section 4): accept and decline
 * each have their own loading and failure flags, per bet.
 */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { sessionActions } from '../session/sessionSlice';

export interface AnswerFlags {
  accepting: boolean;
  acceptFailed: boolean;
  declining: boolean;
  declineFailed: boolean;
}

export interface CounterOfferState {
  byBet: Record<string, AnswerFlags>;
}

const initialState: CounterOfferState = { byBet: {} };
export const NO_FLAGS: AnswerFlags = { accepting: false, acceptFailed: false, declining: false, declineFailed: false };

type Answer = { betId: string; accept: boolean };

const flags = (state: CounterOfferState, betId: string) => (state.byBet[betId] ??= { ...NO_FLAGS });

/** Both buttons wait while either request of the bet is under way. */
export const busy = (f: AnswerFlags | undefined) => Boolean(f && (f.accepting || f.declining));

const counterOfferSlice = createSlice({
  name: 'counterOffer',
  initialState,
  reducers: {
    /** Accept or Decline; the saga ignores it while the bet has a request under way. */
    answerRequested(_state, _action: PayloadAction<Answer>) {},
    answerStarted(state, action: PayloadAction<Answer>) {
      const f = flags(state, action.payload.betId);
      if (action.payload.accept) Object.assign(f, { accepting: true, acceptFailed: false });
      else Object.assign(f, { declining: true, declineFailed: false });
    },
    answerSucceeded(state, action: PayloadAction<Answer>) {
      delete state.byBet[action.payload.betId];
    },
    answerFailed(state, action: PayloadAction<Answer>) {
      const f = flags(state, action.payload.betId);
      if (action.payload.accept) Object.assign(f, { accepting: false, acceptFailed: true });
      else Object.assign(f, { declining: false, declineFailed: true });
    },
  },
  extraReducers: (builder) => {
    builder.addCase(sessionActions.loggedOut, () => initialState);
  },
});

export const counterOfferActions = counterOfferSlice.actions;
export default counterOfferSlice.reducer;

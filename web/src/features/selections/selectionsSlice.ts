import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** A picked price: what the betslip builds its events from (features/betslip). */
export interface Selection {
  gameId: number;
  marketId: number;
  eventId: number;
  price: string;
  base: string | null;
  marketName: string;
  eventName: string;
  team1: string;
  team2: string;
  isLive: boolean;
  /** Game start (unix seconds), shown in the slip and the success popup. */
  startTs?: number;
  /** The market's each-way terms and SP (racing); absent: off. */
  ewAllowed?: boolean;
  ewCoeff?: number | null;
  spAllowed?: boolean;
}

export interface SelectionsState {
  items: Selection[];
}

const initialState: SelectionsState = { items: [] };

const selectionsSlice = createSlice({
  name: 'selections',
  initialState,
  reducers: {
    /** Picks a price, or drops it when picked already; one pick per market. */
    toggled(state, action: PayloadAction<Selection>) {
      const pick = action.payload;
      const had = state.items.some((s) => s.eventId === pick.eventId);
      state.items = state.items.filter((s) => s.marketId !== pick.marketId);
      if (!had) state.items.push(pick);
    },
    /** The betslip's remove button. */
    removed(state, action: PayloadAction<number>) {
      state.items = state.items.filter((s) => s.eventId !== action.payload);
    },
    cleared(state) {
      state.items = [];
    },
  },
});

export const selectionsActions = selectionsSlice.actions;
export default selectionsSlice.reducer;

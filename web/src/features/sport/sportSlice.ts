import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { isOddsFormat, type OddsFormat } from '../../shared/odds';
import { configActions } from '../config/configSlice';

export const ODDS_FORMAT_STORAGE_KEY = 'oddsFormat';

/** One game in a search answer (docs/protocol.md, POST /api/sport/search). */
export interface SearchGame {
  game: { id: number; type: number; team1_name: string; team2_name?: string; start_ts: number };
  competition: { name: string };
}
export interface SearchGroup {
  name: string;
  alias: string;
  results: SearchGame[];
}

export interface SportState {
  oddsFormat: OddsFormat;
  /** A fractional ladder is used for fractional display (spec section 1). */
  fractionalLadder: boolean;
  searchOpen: boolean;
  searchTerm: string;
  searchStatus: 'idle' | 'loading' | 'done' | 'failed';
  searchResults: SearchGroup[];
  /** Sport and competition text for the back-variant header. */
  title: { sport: string; competition: string } | null;
}

const initialState: SportState = {
  oddsFormat: 'decimal',
  fractionalLadder: true,
  searchOpen: false,
  searchTerm: '',
  searchStatus: 'idle',
  searchResults: [],
  title: null,
};

function storedFormat(): OddsFormat | null {
  try {
    const v = localStorage.getItem(ODDS_FORMAT_STORAGE_KEY);
    return isOddsFormat(v) ? (v.toLowerCase() as OddsFormat) : null;
  } catch {
    return null;
  }
}

const sportSlice = createSlice({
  name: 'sport',
  initialState,
  reducers: {
    oddsFormatChosen(state, action: PayloadAction<OddsFormat>) {
      state.oddsFormat = action.payload;
    },
    searchOpened(state, action: PayloadAction<boolean>) {
      state.searchOpen = action.payload;
      if (!action.payload) {
        state.searchTerm = '';
        state.searchResults = [];
        state.searchStatus = 'idle';
      }
    },
    searchTyped(state, action: PayloadAction<string>) {
      state.searchTerm = action.payload;
    },
    searchStarted(state) {
      state.searchStatus = 'loading';
    },
    searchAnswered(state, action: PayloadAction<SearchGroup[]>) {
      state.searchStatus = 'done';
      state.searchResults = action.payload;
    },
    searchFailed(state) {
      state.searchStatus = 'failed';
      state.searchResults = [];
    },
    searchCleared(state) {
      state.searchStatus = 'idle';
      state.searchResults = [];
    },
    titleSet(state, action: PayloadAction<SportState['title']>) {
      state.title = action.payload;
    },
  },
  extraReducers: (builder) => {
    // The member's stored choice, else the configured default (spec section 1).
    builder.addCase(configActions.loaded, (state, action) => {
      const configured = action.payload.odds_format?.toLowerCase();
      state.oddsFormat = storedFormat() ?? (isOddsFormat(configured) ? (configured as OddsFormat) : 'decimal');
      state.fractionalLadder = action.payload.fractional_ladder !== false;
    });
  },
});

export const sportActions = sportSlice.actions;
export default sportSlice.reducer;

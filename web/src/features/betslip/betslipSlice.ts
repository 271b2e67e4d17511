/**
 * The betslip (spec 000 section 3, Betslip and Betslip event). Picks come from the
 * selections slice (the price buttons); the live feed updates price, base and
 * availability; the place-bet saga records the outcome.
 */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import { sessionActions } from '../session/sessionSlice';
import {
  SINGLE, SYSTEM, autoAccepts, autoType, baseChanged, betCount, conflictsOf, isSp, minEvents, priceChanged, systemOptions, totalFromUnit,
  unitFromTotal,
  type AcceptMode, type BetType,
} from './calc';

export interface BetslipEvent {
  gameId: number;
  marketId: number;
  eventId: number;
  marketName: string;
  /** The live price; initialPrice is the one the member agreed to. */
  price: string;
  initialPrice: string;
  base: string | null;
  initialBase: string | null;
  eventType: string | null;
  isLive: boolean;
  blocked: boolean;
  deleted: boolean;
  banker: boolean;
  eachWay: boolean;
  ewAllowed: boolean;
  ewCoeff: number | null;
  /** The market takes bets at the starting price (sp_allowed): the pick may switch to SP (oddType 'sp'). */
  spAllowed: boolean;
  singleStake: string;
  singleUnitStake: string;
  singlePosWin: number;
  team1: string;
  team2: string;
  /** 'Team 1 - Team 2'. */
  title: string;
  /** The pick with W1 / Team 1 / Home ... replaced by the team names. */
  pick: string;
  available: boolean;
  incInSysCalc: boolean;
  /** 'sp': taken at the starting price (do_bet price -1); the price shown then is only the feed's. */
  oddType: 'odd' | 'sp';
  expressId: number | null;
  excludeIds: number[];
  conflicts: number[];
  startTs: number | null;
}

export interface FreeBet {
  id: number;
  amount: string;
}

/** The accepted bet (do_bet details) shown in the success popup. */
export interface BetSuccess {
  bet_id: number | string;
  type: number;
  amount: string | number;
  /** null for system and chain. */
  k: string | number | null;
  possible_win?: string | number | null;
  currency?: string;
  events: Array<{
    event_id?: number;
    game_id?: number;
    event_name: string;
    market_name?: string;
    home_team?: string;
    away_team?: string;
    start_date?: number;
    /** -1 (SP_PRICE) for a leg at the starting price. */
    price?: string | number | null;
    base?: string | number | null;
  }>;
}

/** The outcome message of the last attempt (or of a Max / booking call). */
export interface SlipMessage {
  key: string;
  args?: Array<string | number>;
  /** A server text when the code is outside the catalogue. */
  text?: string;
  /** 2400: a Deposit link; 12: a login button; 1800: Accept Changes; 1510 with super_bet: place it as a super bet. */
  action?: 'deposit' | 'login' | 'accept' | 'superBet';
}

export interface QuickBetNotice {
  id: number;
  kind: 'ok' | 'error';
  key: string;
  args?: Array<string | number>;
  text?: string;
}

export type BetState = 'idle' | 'loading' | 'accepted' | 'failed';

export interface BetslipState {
  open: boolean;
  type: BetType;
  events: BetslipEvent[];
  /** Total stake as typed. */
  stake: string;
  /** Stake per bet (per combination, per way). */
  unitStake: string;
  /** System size: non-banker picks per combination. */
  sysOptionValue: number;
  bankerBetsCount: number;
  acceptPriceChanges: AcceptMode;
  superBet: boolean;
  eachWayMode: boolean;
  freeBet: boolean;
  freeBets: FreeBet[];
  selectedFreeBetId: number | null;
  selectedFreeBetAmount: string | null;
  /** Whether the member's profile says free bets exist (has_free_bets). */
  hasFreeBets: boolean;
  /** book_bet: the id of the picks as they are now (cleared when they change). */
  bookingBet: { loading: boolean; id: string | null };
  /** get_booking from the empty slip, with its failure message. */
  bookingLoad: { loading: boolean; message: SlipMessage | null };
  quickBet: boolean;
  quickBetStake: string;
  betterOddSelectionMode: boolean;
  betState: BetState;
  betAccepted: boolean;
  betFailed: boolean;
  maxBetLoading: boolean;
  message: SlipMessage | null;
  quickBetNotifications: QuickBetNotice[];
  success: BetSuccess | null;
}

export const initialState: BetslipState = {
  open: false,
  type: SINGLE,
  events: [],
  stake: '',
  unitStake: '',
  sysOptionValue: 2,
  bankerBetsCount: 0,
  acceptPriceChanges: 0,
  superBet: false,
  eachWayMode: false,
  freeBet: false,
  freeBets: [],
  selectedFreeBetId: null,
  selectedFreeBetAmount: null,
  hasFreeBets: false,
  bookingBet: { loading: false, id: null },
  bookingLoad: { loading: false, message: null },
  quickBet: false,
  quickBetStake: '10',
  betterOddSelectionMode: false,
  betState: 'idle',
  betAccepted: false,
  betFailed: false,
  maxBetLoading: false,
  message: null,
  quickBetNotifications: [],
  success: null,
};

/** A loaded booking's type and how each pick stands now (get_booking). */
export interface LoadedBooking {
  type: BetType;
  sysBet: number | null;
  events: Array<{ eventId: number; available: boolean; gone: boolean }>;
}

/** What the feed says of one pick. */
export interface FeedEvent {
  price: string;
  base: string | null;
  blocked: boolean;
}

const PLACEHOLDERS_1 = ['W1', 'Team 1', 'Home', 'P1'];
const PLACEHOLDERS_2 = ['W2', 'Team 2', 'Away', 'P2'];

/** W1 / Team 1 / Home ... become the team names (spec 000 section 3). */
export function pickName(name: string, team1: string, team2: string): string {
  if (PLACEHOLDERS_1.includes(name)) return team1;
  if (PLACEHOLDERS_2.includes(name)) return team2;
  return name.replace(/\bTeam 1\b/g, team1).replace(/\bTeam 2\b/g, team2);
}

export function toBetslipEvent(s: Selection): BetslipEvent {
  return {
    gameId: s.gameId, marketId: s.marketId, eventId: s.eventId, marketName: s.marketName,
    price: s.price, initialPrice: s.price, base: s.base, initialBase: s.base, eventType: null, isLive: s.isLive,
    blocked: false, deleted: false, banker: false, eachWay: false,
    ewAllowed: Boolean(s.ewAllowed && s.ewCoeff), ewCoeff: s.ewAllowed ? (s.ewCoeff ?? null) : null, spAllowed: Boolean(s.spAllowed),
    singleStake: '', singleUnitStake: '', singlePosWin: 0,
    team1: s.team1, team2: s.team2, title: s.team2 ? `${s.team1} - ${s.team2}` : s.team1,
    pick: pickName(s.eventName, s.team1, s.team2), available: true, incInSysCalc: true, oddType: 'odd',
    expressId: null, excludeIds: [], conflicts: [], startTs: s.startTs ?? null,
  };
}

const bets = (s: BetslipState) => betCount(s.type, s.events.length, s.bankerBetsCount, s.sysOptionValue);

/** Unit stake follows the total after anything that changes the number of bets. */
const syncUnit = (s: BetslipState) => {
  s.unitStake = unitFromTotal(s.stake, bets(s), s.eachWayMode);
};

const freeBetOff = (s: BetslipState) => {
  s.freeBet = false;
  s.selectedFreeBetId = null;
  s.selectedFreeBetAmount = null;
};

/** A new free-bet list: the chosen one stays if still there, else the first while the switch is on. */
const keepFreeBets = (s: BetslipState, list: FreeBet[]) => {
  s.freeBets = list;
  s.hasFreeBets = list.length > 0;
  if (list.length === 0) return freeBetOff(s);
  const chosen = list.find((f) => f.id === s.selectedFreeBetId) ?? (s.freeBet ? list[0]! : null);
  s.selectedFreeBetId = chosen ? chosen.id : null;
  s.selectedFreeBetAmount = chosen ? chosen.amount : null;
};

/** Type, bankers, system size, conflicts and the single's stake after the picks changed. */
function reconcile(s: BetslipState, auto = true) {
  const before = s.type;
  if (auto) s.type = autoType(s.type, s.events.length);
  if (s.type !== before && s.events.length > 1) freeBetOff(s);
  if (s.type !== SYSTEM) for (const e of s.events) e.banker = false;
  s.bankerBetsCount = s.events.filter((e) => e.banker).length;
  const options = systemOptions(s.events.length, s.bankerBetsCount);
  if (options.length > 0 && !options.includes(s.sysOptionValue)) {
    s.sysOptionValue = Math.min(Math.max(s.sysOptionValue, options[0]!), options[options.length - 1]!);
  }
  const conflicts = conflictsOf(s.events, s.type);
  for (const e of s.events) {
    e.conflicts = conflicts.get(e.eventId) ?? [];
    e.excludeIds = e.conflicts;
    e.incInSysCalc = !e.banker;
    e.available = !e.blocked && !e.deleted;
  }
  if (s.events.length === 0) {
    s.betterOddSelectionMode = false;
    s.message = null;
  }
  const single = s.events.length === 1 ? s.events[0]! : null;
  if (single) single.singleStake = s.stake;
  syncUnit(s);
  s.bookingBet.id = null;
}

const betslipSlice = createSlice({
  name: 'betslip',
  initialState,
  reducers: {
    opened(state) {
      state.open = true;
    },
    /** Closing turns quick bet off (spec 000 section 4). */
    closed(state) {
      state.open = false;
      state.quickBet = false;
    },
    /** System and chain are chosen explicitly; single only fits one pick. */
    typeChosen(state, action: PayloadAction<BetType>) {
      const type = action.payload;
      if (type === state.type || (type === SINGLE && state.events.length > 1)) return;
      if (state.events.length > 1) freeBetOff(state);
      state.type = type;
      state.message = null;
      if (type !== SINGLE) state.betterOddSelectionMode = false;
      reconcile(state, false);
    },
    stakeChanged(state, action: PayloadAction<string>) {
      state.stake = action.payload;
      const single = state.events.length === 1 ? state.events[0]! : null;
      if (single) single.singleStake = action.payload;
      syncUnit(state);
      if (state.message?.action !== 'accept') state.message = null;
    },
    unitStakeChanged(state, action: PayloadAction<string>) {
      state.unitStake = action.payload;
      state.stake = totalFromUnit(action.payload, bets(state), state.eachWayMode);
      const single = state.events.length === 1 ? state.events[0]! : null;
      if (single) single.singleStake = state.stake;
    },
    /** Each-way keeps the unit stake: on doubles the total, off halves it. */
    eachWayToggled(state, action: PayloadAction<boolean>) {
      if (state.eachWayMode === action.payload) return;
      freeBetOff(state);
      const unit = state.unitStake;
      state.eachWayMode = action.payload;
      for (const e of state.events) e.eachWay = action.payload && e.ewAllowed;
      if (unit !== '') state.stake = totalFromUnit(unit, bets(state), state.eachWayMode);
    },
    systemChosen(state, action: PayloadAction<number>) {
      if (!systemOptions(state.events.length, state.bankerBetsCount).includes(action.payload)) return;
      state.sysOptionValue = action.payload;
      syncUnit(state);
    },
    /** Bankers join every system combination; at least two other picks must stay. */
    bankerToggled(state, action: PayloadAction<number>) {
      if (state.type !== SYSTEM) return;
      const e = state.events.find((x) => x.eventId === action.payload);
      if (!e) return;
      const next = state.bankerBetsCount + (e.banker ? -1 : 1);
      if (!e.banker && systemOptions(state.events.length, next).length === 0) return;
      e.banker = !e.banker;
      reconcile(state);
    },
    acceptModeChosen(state, action: PayloadAction<AcceptMode>) {
      state.acceptPriceChanges = action.payload;
      for (const e of state.events) if (autoAccepts(action.payload, e.initialPrice, e.price)) e.initialPrice = e.price;
    },
    /** Accept Changes: the live price and base become the agreed ones. */
    changesAccepted(state) {
      for (const e of state.events) {
        e.initialPrice = e.price;
        e.initialBase = e.base;
      }
      if (state.message?.action === 'accept') state.message = null;
    },
    /** Feed snapshot of the picks; `ready` false while the subscription loads (nothing is deleted then). */
    feedUpdated(state, action: PayloadAction<{ events: Record<string, FeedEvent>; ready: boolean }>) {
      const { events, ready } = action.payload;
      for (const e of state.events) {
        const live = events[String(e.eventId)];
        if (!live) {
          if (ready) e.deleted = true;
          continue;
        }
        e.deleted = false;
        e.blocked = live.blocked;
        if (live.price && Number(live.price) !== Number(e.price)) {
          // an SP pick follows the feed without a change to accept
          if (isSp(e) || (autoAccepts(state.acceptPriceChanges, e.price, live.price) && Number(e.price) === Number(e.initialPrice))) {
            e.initialPrice = live.price;
          }
          e.price = live.price;
        }
        if ((live.base ?? null) !== e.base) e.base = live.base ?? null;
        e.available = !e.blocked && !e.deleted;
      }
    },
    /** 1800: the server's new prices, to be accepted. */
    pricesChanged(state, action: PayloadAction<Array<{ event_id: number; new_price: string | number }>>) {
      for (const change of action.payload) {
        const e = state.events.find((x) => x.eventId === Number(change.event_id));
        if (!e) continue;
        e.price = String(change.new_price);
        if (isSp(e)) e.initialPrice = e.price;
      }
    },
    freeBetToggled(state, action: PayloadAction<boolean>) {
      if (!action.payload || !state.hasFreeBets || state.quickBet) return freeBetOff(state);
      state.freeBet = true;
      const first = state.freeBets[0];
      if (first && state.selectedFreeBetId === null) {
        state.selectedFreeBetId = first.id;
        state.selectedFreeBetAmount = first.amount;
      }
    },
    freeBetChosen(state, action: PayloadAction<FreeBet>) {
      state.selectedFreeBetId = action.payload.id;
      state.selectedFreeBetAmount = action.payload.amount;
    },
    /** get_free_bets: the member's free bets (soonest to expire first); none left hides the switch. */
    freeBetsLoaded(state, action: PayloadAction<FreeBet[]>) {
      keepFreeBets(state, action.payload);
    },
    /** A bet staked with this free bet went through: it is gone (the saga reloads the list). */
    freeBetUsed(state, action: PayloadAction<number>) {
      keepFreeBets(state, state.freeBets.filter((f) => f.id !== action.payload));
    },
    /** The list may be stale (1912): the saga reloads it. */
    freeBetsReloadRequested() {},
    /** Quick bet: a tapped price is placed at once with the saved stake; free bets go off. */
    quickBetToggled(state, action: PayloadAction<boolean>) {
      state.quickBet = action.payload;
      if (action.payload) freeBetOff(state);
    },
    quickBetStakeSaved(state, action: PayloadAction<string>) {
      state.quickBetStake = action.payload;
    },
    quickBetNotified(state, action: PayloadAction<QuickBetNotice>) {
      state.quickBetNotifications.push(action.payload);
    },
    quickBetNoticeDismissed(state, action: PayloadAction<number>) {
      state.quickBetNotifications = state.quickBetNotifications.filter((n) => n.id !== action.payload);
    },
    betterOddsToggled(state, action: PayloadAction<boolean>) {
      state.betterOddSelectionMode = action.payload && state.type === SINGLE && !state.events.some(isSp);
    },
    /**
     * SP next to a pick's price: taken at the starting price instead (only where the market has sp_allowed).
     * An SP pick agrees to no price, so a pending change of it is dropped; switched back it takes the price shown.
     */
    spToggled(state, action: PayloadAction<{ eventId: number; on: boolean }>) {
      const e = state.events.find((x) => x.eventId === action.payload.eventId);
      const on = action.payload.on && Boolean(e?.spAllowed);
      if (!e || isSp(e) === on) return;
      e.oddType = on ? 'sp' : 'odd';
      e.initialPrice = e.price;
      if (on) state.betterOddSelectionMode = false;
      if (state.message?.action === 'accept' && !state.events.some((x) => priceChanged(x) || baseChanged(x))) state.message = null;
      state.bookingBet.id = null;
    },
    superBetToggled(state, action: PayloadAction<boolean>) {
      state.superBet = action.payload;
    },
    bookingRequested(state) {
      state.bookingBet.loading = true;
    },
    bookingFinished(state, action: PayloadAction<string | null>) {
      state.bookingBet = { loading: false, id: action.payload };
    },
    /** The 'Load booking' field of the empty slip. */
    bookingLoadRequested(state, _action: PayloadAction<string>) {
      state.bookingLoad = { loading: true, message: null };
    },
    bookingLoadFinished(state, action: PayloadAction<SlipMessage | null>) {
      state.bookingLoad = { loading: false, message: action.payload };
    },
    /** After the booking's picks were added: its type and system size, gone and blocked picks marked as the feed would. */
    bookingLoaded(state, action: PayloadAction<LoadedBooking>) {
      const { type, sysBet, events } = action.payload;
      for (const loaded of events) {
        const e = state.events.find((x) => x.eventId === loaded.eventId);
        if (!e) continue;
        e.deleted = loaded.gone;
        e.blocked = !loaded.gone && !loaded.available;
      }
      if (type !== state.type && type !== SINGLE && state.events.length >= minEvents(type)) state.type = type;
      if (state.type === SYSTEM && sysBet !== null && systemOptions(state.events.length, 0).includes(sysBet)) state.sysOptionValue = sysBet;
      reconcile(state, false);
    },
    maxBetRequested(state) {
      state.maxBetLoading = true;
    },
    maxBetFinished(state, action: PayloadAction<string | null>) {
      state.maxBetLoading = false;
      if (action.payload !== null) {
        state.stake = action.payload;
        syncUnit(state);
        const single = state.events.length === 1 ? state.events[0]! : null;
        if (single) single.singleStake = action.payload;
      }
    },
    /** The place-bet button; the saga takes these one at a time. */
    placeRequested() {},
    /** After 1510 with details.super_bet: the same slip again with mode -1. */
    superBetPlaceRequested() {},
    quickPlaceRequested(_state, _action: PayloadAction<number>) {},
    placeStarted(state) {
      state.betState = 'loading';
      state.betAccepted = false;
      state.betFailed = false;
      state.message = null;
    },
    placeAccepted(state, action: PayloadAction<BetSuccess>) {
      state.betState = 'accepted';
      state.betAccepted = true;
      state.success = action.payload;
    },
    /** A super bet went On Hold: neither accepted nor refused yet. */
    placeHeld(state) {
      state.betState = 'idle';
      state.message = null;
    },
    placeFailed(state, action: PayloadAction<SlipMessage>) {
      state.betState = 'failed';
      state.betFailed = true;
      state.message = action.payload;
    },
    messageShown(state, action: PayloadAction<SlipMessage | null>) {
      state.message = action.payload;
    },
    successClosed(state) {
      state.success = null;
      state.betState = 'idle';
      state.betAccepted = false;
    },
    /** After an accepted bet: the picks and the stake go. */
    slipCleared(state) {
      state.events = [];
      state.stake = '';
      state.unitStake = '';
      state.type = SINGLE;
      state.bankerBetsCount = 0;
      freeBetOff(state);
      reconcile(state);
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(selectionsActions.toggled, (state, action) => {
        const pick = action.payload;
        const had = state.events.some((e) => e.eventId === pick.eventId);
        state.events = state.events.filter((e) => e.marketId !== pick.marketId);
        if (!had) state.events.push(toBetslipEvent(pick));
        reconcile(state);
      })
      .addCase(selectionsActions.removed, (state, action) => {
        state.events = state.events.filter((e) => e.eventId !== action.payload);
        reconcile(state);
      })
      .addCase(selectionsActions.cleared, (state) => {
        state.events = [];
        reconcile(state);
      })
      .addCase(sessionActions.profileLoaded, (state, action) => {
        state.hasFreeBets = Boolean((action.payload as { has_free_bets?: boolean }).has_free_bets);
        if (!state.hasFreeBets) freeBetOff(state);
      })
      .addCase(sessionActions.loggedOut, (state) => {
        state.hasFreeBets = false;
        state.freeBets = [];
        freeBetOff(state);
      });
  },
});

export const betslipActions = betslipSlice.actions;
export default betslipSlice.reducer;

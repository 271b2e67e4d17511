import { configureStore, type Middleware } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SwarmError } from '../../api/swarm';
import { rootReducer } from '../../app/store';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import reducer, { betslipActions, initialState, type BetslipState } from './betslipSlice';
import { CHAIN, EXPRESS, SINGLE, SYSTEM } from './calc';
import { betslipSaga, bookBetParams, bookedSelection, type BookedPick, type BetslipDeps } from './sagas';

const pick = (eventId: number, price = '2.000'): Selection => ({
  gameId: eventId, marketId: eventId * 10, eventId, price, base: null, marketName: 'Match Result', eventName: 'W1',
  team1: `Home ${eventId}`, team2: `Away ${eventId}`, isLive: false,
});
const booked = (eventId: number, over: Partial<BookedPick> = {}): BookedPick => ({
  event_id: eventId, price: '2.100', booked_price: '2.000', base: null, game_id: eventId, market_id: eventId * 10,
  event_name: 'W2', market_name: 'Match Result', team1: `Home ${eventId}`, team2: `Away ${eventId}`, start_ts: 1_900_000_000,
  is_live: false, available: true, ...over,
});

type Call = { command: string; params: Record<string, unknown> };

/** A store with the betslip sagas running; `answer` scripts the Swarm commands. */
function start(answer: (call: Call) => Promise<unknown> | unknown) {
  const calls: Call[] = [];
  const actions: string[] = [];
  const deps: BetslipDeps = {
    request: async <T,>(command: string, params: Record<string, unknown>) => {
      calls.push({ command, params });
      return (await answer({ command, params })) as T;
    },
  };
  const recorder: Middleware = () => (next) => (action) => (actions.push((action as { type: string }).type), next(action));
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga).concat(recorder),
  });
  const task = saga.run(betslipSaga, deps);
  return { store, calls, actions, task };
}

const run = (...actions: Array<{ type: string; payload?: unknown }>) => actions.reduce((s, a) => reducer(s, a as never), initialState as BetslipState);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('booking id (book_bet)', () => {
  it('sends the picks at the prices shown and shows the id; loading while it waits', async () => {
    let answer!: (a: unknown) => void;
    const { store, calls, task } = start(() => new Promise((r) => (answer = r)));
    store.dispatch(selectionsActions.toggled(pick(1)));
    store.dispatch(selectionsActions.toggled(pick(2, '3.5')));
    store.dispatch(betslipActions.bookingRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([{ command: 'book_bet', params: { type: EXPRESS, bets: [{ event_id: 1, price: 2 }, { event_id: 2, price: 3.5 }] } }]);
    expect(store.getState().betslip.bookingBet).toEqual({ loading: true, id: null });
    store.dispatch(betslipActions.bookingRequested()); // the button is disabled; a second request is ignored anyway
    answer({ result: 0, details: { number: 'K7PX3QMA' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    expect(store.getState().betslip.bookingBet).toEqual({ loading: false, id: 'K7PX3QMA' });
    expect(store.getState().betslip.message).toBeNull();
    task.cancel();
  });

  it('needs no login: a visitor books without a login popup', async () => {
    const { store, calls, actions, task } = start(() => ({ result: 0, details: { number: 'ABCDEFGH' } }));
    expect(store.getState().session.auth).toBeNull();
    store.dispatch(selectionsActions.toggled(pick(1)));
    store.dispatch(betslipActions.bookingRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.command)).toEqual(['book_bet']);
    expect(store.getState().betslip.bookingBet.id).toBe('ABCDEFGH');
    expect(actions).not.toContain('ui/popupRequested');
    task.cancel();
  });

  it('a refusal shows its catalogue message and no id', async () => {
    const { store, task } = start(() => ({ result: 1902, result_text: 'Event is not available.', details: { event_id: 1 } }));
    store.dispatch(selectionsActions.toggled(pick(1)));
    store.dispatch(betslipActions.bookingRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.bookingBet).toEqual({ loading: false, id: null });
    expect(store.getState().betslip.message).toEqual({ key: 'betslip.event_not_available', args: [] });
    task.cancel();
  });

  it('a protocol or network failure ends the loading with its message', async () => {
    const failing = start(() => Promise.reject(new SwarmError(3, 'invalid params: missing field `type`')));
    failing.store.dispatch(selectionsActions.toggled(pick(1)));
    failing.store.dispatch(betslipActions.bookingRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(failing.store.getState().betslip.bookingBet.loading).toBe(false);
    // the member reads a message in their language, never the server's text
    expect(failing.store.getState().betslip.message).toEqual({ key: 'error.request_failed' });
    failing.task.cancel();
    const offline = start(() => Promise.reject(new Error('socket closed')));
    offline.store.dispatch(selectionsActions.toggled(pick(1)));
    offline.store.dispatch(betslipActions.bookingRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(offline.store.getState().betslip.message).toEqual({ key: 'error.network' });
    offline.task.cancel();
  });

  it('an empty slip sends nothing', async () => {
    const { store, calls, task } = start(() => ({ result: 0, details: { number: 'X' } }));
    store.dispatch(betslipActions.bookingRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([]);
    expect(store.getState().betslip.bookingBet).toEqual({ loading: false, id: null });
    task.cancel();
  });

  it('params carry the system size, SP as -1 and no price for a pick without one', () => {
    let s = run(...[1, 2, 3].map((id) => selectionsActions.toggled(pick(id))), betslipActions.typeChosen(SYSTEM));
    s = { ...s, events: s.events.map((e, i) => (i === 1 ? { ...e, oddType: 'sp' as const } : i === 2 ? { ...e, price: '' } : e)) };
    expect(bookBetParams(s)).toEqual({
      type: SYSTEM, sys_bet: 2, bets: [{ event_id: 1, price: 2 }, { event_id: 2, price: -1 }, { event_id: 3, price: null }],
    });
  });
});

describe('booking id in the reducer', () => {
  it('is cleared when the picks or the type change, not when prices move', () => {
    let s = run(...[1, 2].map((id) => selectionsActions.toggled(pick(id))), betslipActions.bookingRequested(), betslipActions.bookingFinished('K7PX3QMA'));
    expect(s.bookingBet).toEqual({ loading: false, id: 'K7PX3QMA' });
    s = reducer(s, betslipActions.feedUpdated({ events: { 1: { price: '2.2', base: null, blocked: false }, 2: { price: '2', base: null, blocked: false } }, ready: true }));
    expect(s.bookingBet.id).toBe('K7PX3QMA');
    expect(reducer(s, betslipActions.typeChosen(CHAIN)).bookingBet.id).toBeNull();
    expect(reducer(s, selectionsActions.toggled(pick(3))).bookingBet.id).toBeNull();
    expect(reducer(s, selectionsActions.removed(1)).bookingBet.id).toBeNull();
    expect(reducer(s, selectionsActions.cleared()).bookingBet.id).toBeNull();
  });

  it('marks gone and blocked picks of a loaded booking and takes its type and system size', () => {
    let s = run(...[1, 2, 3, 4].map((id) => selectionsActions.toggled(pick(id))));
    s = reducer(s, betslipActions.bookingLoaded({
      type: SYSTEM, sysBet: 3,
      events: [{ eventId: 1, available: true, gone: false }, { eventId: 2, available: false, gone: true }, { eventId: 3, available: false, gone: false }],
    }));
    expect(s.type).toBe(SYSTEM);
    expect(s.sysOptionValue).toBe(3);
    expect(s.events.map((e) => [e.deleted, e.blocked, e.available])).toEqual([
      [false, false, true], [true, false, false], [false, true, false], [false, false, true],
    ]);
  });

  it('keeps the automatic type when the booking type does not fit the picks', () => {
    const two = run(...[1, 2].map((id) => selectionsActions.toggled(pick(id))));
    expect(reducer(two, betslipActions.bookingLoaded({ type: SYSTEM, sysBet: 2, events: [] })).type).toBe(EXPRESS);
    expect(reducer(two, betslipActions.bookingLoaded({ type: SINGLE, sysBet: null, events: [] })).type).toBe(EXPRESS);
    expect(reducer(two, betslipActions.bookingLoaded({ type: CHAIN, sysBet: null, events: [] })).type).toBe(CHAIN);
  });

  it('tracks the load field', () => {
    let s = reducer(initialState, betslipActions.bookingLoadRequested('abc'));
    expect(s.bookingLoad).toEqual({ loading: true, message: null });
    s = reducer(s, betslipActions.bookingLoadFinished({ key: 'betslip.booking_not_found' }));
    expect(s.bookingLoad).toEqual({ loading: false, message: { key: 'betslip.booking_not_found' } });
    expect(reducer(s, betslipActions.bookingLoadRequested('abc')).bookingLoad.message).toBeNull();
  });
});

describe('load booking (get_booking)', () => {
  it('adds the booked picks at current prices, marks gone and blocked ones, and takes the type', async () => {
    const { store, calls, task } = start(() => ({
      result: 0,
      details: {
        type: 3, sys_bet: 2,
        bets: [booked(1), booked(2, { price: null, available: false, booked_price: '1.900' }), booked(3, { price: '2.500', available: false, base: '1.5' })],
      },
    }));
    store.dispatch(betslipActions.opened());
    store.dispatch(betslipActions.bookingLoadRequested('  k7px3qma '));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls[0]).toEqual({ command: 'get_booking', params: { booking_id: 'k7px3qma' } });
    const slip = store.getState().betslip;
    expect(store.getState().selections.items.map((s) => s.eventId)).toEqual([1, 2, 3]);
    expect(slip.events.map((e) => ({ id: e.eventId, price: e.price, initial: e.initialPrice, deleted: e.deleted, blocked: e.blocked, available: e.available })))
      .toEqual([
        { id: 1, price: '2.100', initial: '2.100', deleted: false, blocked: false, available: true },
        { id: 2, price: '1.900', initial: '1.900', deleted: true, blocked: false, available: false },
        { id: 3, price: '2.500', initial: '2.500', deleted: false, blocked: true, available: false },
      ]);
    expect(slip.events[0]).toMatchObject({ pick: 'Away 1', title: 'Home 1 - Away 1', marketName: 'Match Result', startTs: 1_900_000_000 });
    expect(slip.events[2]!.base).toBe('1.5');
    expect(slip).toMatchObject({ type: SYSTEM, sysOptionValue: 2, bookingLoad: { loading: false, message: null }, open: true });
    task.cancel();
  });

  it('replaces what the slip held, and a quick-bet slip loads without placing anything', async () => {
    const { store, calls, task } = start(() => ({ result: 0, details: { type: 1, sys_bet: null, bets: [booked(7)] } }));
    store.dispatch(selectionsActions.toggled(pick(1)));
    store.dispatch(betslipActions.quickBetToggled(true));
    store.dispatch(betslipActions.bookingLoadRequested('ABCDEFGH'));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.command)).toEqual(['get_booking']);
    expect(store.getState().betslip).toMatchObject({ quickBet: false, type: SINGLE });
    expect(store.getState().betslip.events.map((e) => e.eventId)).toEqual([7]);
    task.cancel();
  });

  it('an unknown id shows Booking not found and leaves the slip as it was', async () => {
    const { store, task } = start(() => ({ result: 1930, result_text: 'Booking not found', details: null }));
    store.dispatch(betslipActions.bookingLoadRequested('ZZZZZZZZ'));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.bookingLoad).toEqual({ loading: false, message: { key: 'betslip.booking_not_found', args: [] } });
    expect(store.getState().betslip.events).toEqual([]);
    task.cancel();
  });

  it('a network failure ends the loading with the network message; a blank id sends nothing', async () => {
    const { store, calls, task } = start(() => Promise.reject(new Error('socket closed')));
    store.dispatch(betslipActions.bookingLoadRequested('ABCDEFGH'));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().betslip.bookingLoad).toEqual({ loading: false, message: { key: 'error.network' } });
    store.dispatch(betslipActions.bookingLoadRequested('   '));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    expect(store.getState().betslip.bookingLoad.loading).toBe(false);
    task.cancel();
  });

  it('a booked pick becomes a selection at its current price, or the booked one when gone', () => {
    expect(bookedSelection(booked(5, { team2: null, is_live: true }))).toEqual({
      gameId: 5, marketId: 50, eventId: 5, price: '2.100', base: null, marketName: 'Match Result', eventName: 'W2',
      team1: 'Home 5', team2: '', isLive: true, startTs: 1_900_000_000,
    });
    expect(bookedSelection(booked(5, { price: null })).price).toBe('2.000');
  });
});

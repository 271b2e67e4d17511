/** Starting price (SP): a pick of an sp_allowed market taken at the price known at the off (do_bet price -1). */
import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { describe, expect, it } from 'vitest';
import { rootReducer, type RootState } from '../../app/store';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import { BetSuccessPopup, potentialWin } from './BetSuccessPopup';
import { BetslipPanel } from './BetslipPanel';
import reducer, { betslipActions, initialState, type BetslipState } from './betslipSlice';
import { CHAIN, EXPRESS, MSG, SINGLE, SP_PRICE, SYSTEM, blockingMessage, possibleWin, priceChanged } from './calc';
import { bookBetParams, doBetParams } from './sagas';
import { selectSlipView } from './selectors';

/** A runner of a race (sp_allowed, each-way 1/4) or, with sp false, a football price. */
const runner = (eventId: number, price = '5.000', { sp = true, gameId = eventId } = {}): Selection => ({
  gameId, marketId: gameId * 10, eventId, price, base: null, marketName: sp ? 'Winner' : 'Match Result', eventName: `Horse ${eventId}`,
  team1: `Royal Downs Race ${gameId}`, team2: '', isLive: false, ewAllowed: sp, ewCoeff: sp ? 0.25 : null, spAllowed: sp,
});
const run = (...actions: Array<{ type: string; payload?: unknown }>) => actions.reduce((s, a) => reducer(s, a as never), initialState as BetslipState);
const sp = (eventId: number, on = true) => betslipActions.spToggled({ eventId, on });
const feed = (prices: Record<number, string>) => betslipActions.feedUpdated({
  events: Object.fromEntries(Object.entries(prices).map(([id, price]) => [id, { price, base: null, blocked: false }])), ready: true,
});

describe('SP in the reducer', () => {
  it('switches on only where the market allows SP, and back off', () => {
    let s = run(selectionsActions.toggled(runner(1)), selectionsActions.toggled(runner(2, '2.000', { sp: false })));
    expect(s.events.map((e) => [e.spAllowed, e.oddType])).toEqual([[true, 'odd'], [false, 'odd']]);
    s = reducer(s, sp(2));
    expect(s.events[1]!.oddType).toBe('odd');
    s = reducer(s, sp(1));
    expect(s.events[0]!.oddType).toBe('sp');
    s = reducer(s, sp(1, false));
    expect(s.events[0]!.oddType).toBe('odd');
    expect(reducer(s, sp(99)).events).toEqual(s.events); // no such pick
  });

  it('is gone with the pick: removed, replaced in its market, cleared; a pick added again starts at the price', () => {
    const on = run(selectionsActions.toggled(runner(1)), sp(1));
    expect(on.events[0]!.oddType).toBe('sp');
    let s = reducer(on, selectionsActions.removed(1));
    expect(s.events).toEqual([]);
    s = reducer(s, selectionsActions.toggled(runner(1)));
    expect(s.events[0]!.oddType).toBe('odd');
    // another runner of the same race replaces it
    s = reducer(on, selectionsActions.toggled(runner(7, '3.000', { gameId: 1 })));
    expect(s.events.map((e) => [e.eventId, e.oddType])).toEqual([[7, 'odd']]);
    // the price button tapped again drops it
    expect(reducer(on, selectionsActions.toggled(runner(1))).events).toEqual([]);
    expect(reducer(on, selectionsActions.cleared()).events).toEqual([]);
  });

  it('never has a changed price: the feed moves it without anything to accept, a pending change goes', () => {
    let s = run(selectionsActions.toggled(runner(1)), selectionsActions.toggled(runner(2)), sp(1), feed({ 1: '6.5', 2: '4.5' }));
    expect(s.events[0]).toMatchObject({ price: '6.5', initialPrice: '6.5', oddType: 'sp' });
    expect(priceChanged(s.events[0]!)).toBe(false);
    expect(priceChanged(s.events[1]!)).toBe(true); // the other pick still asks
    // a 1800 answer naming the SP pick changes nothing to accept either
    s = reducer(s, betslipActions.pricesChanged([{ event_id: 1, new_price: '7' }]));
    expect(priceChanged(s.events[0]!)).toBe(false);
    // switching SP on drops the pick's pending change and the Accept Changes message when nothing else changed
    s = { ...reducer(s, betslipActions.changesAccepted()), message: null };
    s = reducer(s, feed({ 1: '7', 2: '3.9' }));
    s = reducer(s, betslipActions.messageShown({ key: MSG.priceChanged, action: 'accept' }));
    s = reducer(s, sp(2));
    expect(s.events.some(priceChanged)).toBe(false);
    expect(s.message).toBeNull();
    // switched off, the pick takes the price shown
    s = reducer(s, sp(2, false));
    expect(s.events[1]).toMatchObject({ oddType: 'odd', price: '3.9', initialPrice: '3.9' });
  });

  it('turns better odds off and keeps them off while the single is at SP', () => {
    let s = run(selectionsActions.toggled(runner(1)), betslipActions.betterOddsToggled(true));
    expect(s.betterOddSelectionMode).toBe(true);
    s = reducer(s, sp(1));
    expect(s.betterOddSelectionMode).toBe(false);
    expect(reducer(s, betslipActions.betterOddsToggled(true)).betterOddSelectionMode).toBe(false);
  });

  it('clears a booking id: SP is part of what was booked', () => {
    const s = run(selectionsActions.toggled(runner(1)), betslipActions.bookingFinished('K7PX3QMA'), sp(1));
    expect(s.bookingBet.id).toBeNull();
    expect(bookBetParams(s)).toEqual({ type: SINGLE, bets: [{ event_id: 1, price: SP_PRICE }] });
  });
});

describe('SP in the arithmetic', () => {
  const events = (...odd: Array<'odd' | 'sp'>) => odd.map((oddType, i) => ({ price: String(2 + i), banker: false, ewCoeff: 0.25, oddType }));

  it('leaves no possible win with an SP pick, whatever the type', () => {
    expect(possibleWin({ type: SINGLE, events: events('odd'), stake: '10', eachWay: false, sysK: 2 })).toBe('20.00');
    expect(possibleWin({ type: SINGLE, events: events('sp'), stake: '10', eachWay: false, sysK: 2 })).toBeNull();
    expect(possibleWin({ type: SINGLE, events: events('sp'), stake: '20', eachWay: true, sysK: 2 })).toBeNull();
    for (const type of [EXPRESS, CHAIN] as const) expect(possibleWin({ type, events: events('odd', 'sp'), stake: '10', eachWay: false, sysK: 2 })).toBeNull();
    expect(possibleWin({ type: SYSTEM, events: events('odd', 'odd', 'sp'), stake: '30', eachWay: false, sysK: 2 })).toBeNull();
  });

  it('checks the odds limit on the known prices only and never asks to accept an SP pick', () => {
    const slip = run(...[1, 2, 3].map((id) => selectionsActions.toggled(runner(id, '12'))), sp(3), feed({ 1: '12', 2: '12', 3: '40' }));
    const check = (s: BetslipState) => blockingMessage({ type: s.type, events: s.events, stake: '10', loggedIn: true, balance: 100, freeBet: false });
    expect(check(slip)).toBeNull(); // 12 x 12 known; the SP pick's 40 neither counts nor asks
    const over = run(...[1, 2, 3].map((id) => selectionsActions.toggled(runner(id, '11'))), sp(3));
    expect(check(over)).toBeNull(); // 121
    const known = run(...[1, 2, 3, 4].map((id) => selectionsActions.toggled(runner(id, '11'))), sp(4));
    expect(check(known)).toBe(MSG.oddsLimit); // 1331 known already
  });

  it('shows the slip odds and possible win as unknown', () => {
    const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }) });
    store.dispatch(selectionsActions.toggled(runner(1)));
    store.dispatch(selectionsActions.toggled(runner(2, '3.000')));
    store.dispatch(betslipActions.stakeChanged('10'));
    const view = () => selectSlipView(store.getState() as RootState);
    expect(view()).toMatchObject({ sp: false, totalOdds: '15', possibleWin: '150.00' });
    store.dispatch(sp(2));
    expect(view()).toMatchObject({ sp: true, totalOdds: null, possibleWin: null, message: MSG.login });
  });

  it('shows a bet at SP without odds and potential win in the success popup', () => {
    expect(potentialWin('10', null, null)).toBeNull();
    expect(potentialWin('10', null, '25')).toBe('25'); // a system: the server's possible win
    expect(potentialWin('10', '2.5', null)).toBe('25');
  });
});

describe('SP in the placement params', () => {
  it('sends price -1 for an SP pick and the agreed price for the others, on singles and multiples', () => {
    let s = run(selectionsActions.toggled(runner(1)), sp(1), betslipActions.stakeChanged('10'));
    expect(doBetParams(s)).toMatchObject({ type: SINGLE, amount: 10, is_offer: false, bets: [{ event_id: 1, price: -1, banker: false }] });
    s = run(selectionsActions.toggled(runner(1)), selectionsActions.toggled(runner(2, '3.000')), sp(2), betslipActions.eachWayToggled(true),
      betslipActions.unitStakeChanged('5'));
    expect(doBetParams(s)).toMatchObject({
      type: EXPRESS, amount: 10, each_way: true, bets: [{ event_id: 1, price: 5, banker: false }, { event_id: 2, price: -1, banker: false }],
    });
  });
});

describe('SP in the betslip view', () => {
  const eng = readSkin('languages/eng.json');

  it('a toggle next to the price of an SP market: the pick shows SP, odds and possible win turn to -', () => {
    const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }) });
    store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
    store.dispatch(selectionsActions.toggled(runner(1)));
    store.dispatch(selectionsActions.toggled(runner(2, '2.000', { sp: false })));
    store.dispatch(betslipActions.stakeChanged('10'));
    store.dispatch(betslipActions.opened());
    render(<Provider store={store}><BetslipPanel /></Provider>);
    const [race, football] = screen.getAllByTestId('betslip-event');
    expect(within(football!).queryByTestId('sp-toggle')).toBeNull();
    const toggle = within(race!).getByTestId('sp-toggle');
    expect(toggle).toHaveAttribute('aria-pressed', 'false');
    expect(within(race!).getByTestId('slip-price')).toHaveTextContent('5.00');
    expect(screen.getByTestId('total-odds')).toHaveTextContent('10.00');
    expect(screen.getByTestId('possible-win')).toHaveTextContent('100');
    fireEvent.click(toggle);
    expect(store.getState().betslip.events[0]!.oddType).toBe('sp');
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(within(race!).getByTestId('slip-price')).toHaveTextContent(/^SP$/);
    expect(race).toHaveTextContent('Winner · Starting price');
    expect(screen.getByTestId('total-odds')).toHaveTextContent(/^-$/);
    expect(screen.getByTestId('possible-win')).toHaveTextContent(/^-$/);
    // the feed moves the runner: no arrow, no Accept Changes
    act(() => void store.dispatch(feed({ 1: '7.5', 2: '2.000' })));
    expect(within(race!).getByTestId('slip-price')).toHaveTextContent(/^SP$/);
    expect(screen.queryByTestId('accept-changes')).toBeNull();
    fireEvent.click(toggle);
    expect(within(race!).getByTestId('slip-price')).toHaveTextContent('7.50');
    expect(screen.getByTestId('total-odds')).toHaveTextContent('15.00');
  });

  it('the success popup of an SP bet: @SP and no potential win', () => {
    const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false }) });
    store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
    store.dispatch(betslipActions.placeAccepted({
      bet_id: 9, type: 1, amount: '10.00', k: null, possible_win: null, currency: 'CNY',
      events: [{ event_id: 1, event_name: 'Horse 1', home_team: 'Royal Downs Race 1', price: '-1' }],
    }));
    render(<Provider store={store}><BetSuccessPopup /></Provider>);
    expect(screen.getByTestId('bet-success-win')).toHaveTextContent(/^-$/);
    expect(screen.getByTestId('bet-success')).toHaveTextContent('@SP');
    expect(screen.getByTestId('bet-success')).not.toHaveTextContent('-1.00');
  });
});

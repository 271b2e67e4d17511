import { describe, expect, it } from 'vitest';
import { selectionsActions, type Selection } from '../selections/selectionsSlice';
import reducer, { betslipActions, initialState, toBetslipEvent, type BetslipState } from './betslipSlice';
import {
  CHAIN, EXPRESS, KEYBOARD_MAX_CHARS, MSG, QUICK_BET_STAKES, SINGLE, SYSTEM, applyKey, betterOdds, blockingMessage, checkQuickStake,
  combinations, figuresOf, possibleWin, quickAmounts, sanitizeStake, sysBetValue, systemCombinations, systemOptions, type RuleInput,
} from './calc';
import { collectFeed, doBetParams } from './sagas';

const pick = (eventId: number, gameId = eventId, price = '2.000', marketId = eventId * 10): Selection => ({
  gameId, marketId, eventId, price, base: null, marketName: 'Match Result', eventName: 'W1', team1: `Home ${gameId}`, team2: `Away ${gameId}`, isLive: false,
});
const run = (...actions: Array<{ type: string; payload?: unknown }>) => actions.reduce((s, a) => reducer(s, a as never), initialState as BetslipState);
const add = (...ids: number[]) => ids.map((id) => selectionsActions.toggled(pick(id)));

describe('betslip type', () => {
  it('switches single <-> express by the number of picks', () => {
    let s = run(...add(1));
    expect(s.type).toBe(SINGLE);
    expect(s.events[0]).toMatchObject({ pick: 'Home 1', initialPrice: '2.000', title: 'Home 1 - Away 1', available: true });
    s = reducer(s, selectionsActions.toggled(pick(2)));
    expect(s.type).toBe(EXPRESS);
    s = reducer(s, selectionsActions.removed(2));
    expect(s.type).toBe(SINGLE);
  });

  it('a second tap on a price removes it; another price of the same market replaces it', () => {
    let s = run(selectionsActions.toggled(pick(1)), selectionsActions.toggled(pick(1)));
    expect(s.events).toHaveLength(0);
    s = run(selectionsActions.toggled(pick(1, 1, '2.0', 77)), selectionsActions.toggled(pick(2, 1, '3.0', 77)));
    expect(s.events.map((e) => e.eventId)).toEqual([2]);
  });

  it('keeps an explicit system while 3 picks remain, and chain while 2 do', () => {
    let s = run(...add(1, 2, 3), betslipActions.typeChosen(SYSTEM));
    expect(s.type).toBe(SYSTEM);
    s = reducer(s, selectionsActions.toggled(pick(4)));
    expect(s.type).toBe(SYSTEM);
    s = run(...add(1, 2, 3), betslipActions.typeChosen(SYSTEM), selectionsActions.removed(3));
    expect(s.type).toBe(EXPRESS);
    s = run(...add(1, 2), betslipActions.typeChosen(CHAIN), selectionsActions.toggled(pick(3)));
    expect(s.type).toBe(CHAIN);
    s = reducer(s, selectionsActions.cleared());
    expect(s.type).toBe(SINGLE);
  });

  it('refuses single with several picks', () => {
    const s = run(...add(1, 2), betslipActions.typeChosen(SINGLE));
    expect(s.type).toBe(EXPRESS);
  });

  it('marks picks of one game as conflicting outside singles', () => {
    const s = run(selectionsActions.toggled(pick(1, 9, '2', 1)), selectionsActions.toggled(pick(2, 9, '2', 2)));
    expect(s.events.map((e) => e.conflicts)).toEqual([[2], [1]]);
  });
});

describe('system bets', () => {
  it('counts combinations by binomials', () => {
    expect(combinations(3, 2)).toBe(3);
    expect(combinations(4, 2)).toBe(6);
    expect(combinations(5, 3)).toBe(10);
    expect(combinations(10, 4)).toBe(210);
    expect(combinations(3, 4)).toBe(0);
    expect(systemOptions(3, 0)).toEqual([2]);
    expect(systemOptions(5, 0)).toEqual([2, 3, 4]);
    expect(systemCombinations(5, 0, 3)).toBe(10);
  });

  it('leaves bankers out of the count: they join every combination', () => {
    expect(systemOptions(4, 1)).toEqual([1, 2]);
    expect(systemCombinations(4, 1, 2)).toBe(3);
    expect(systemCombinations(5, 2, 2)).toBe(3);
    expect(sysBetValue(2, 1)).toBe(3);
    let s = run(...add(1, 2, 3, 4), betslipActions.typeChosen(SYSTEM), betslipActions.bankerToggled(1));
    expect(s.bankerBetsCount).toBe(1);
    expect(s.events[0]!.incInSysCalc).toBe(false);
    s = reducer(s, betslipActions.systemChosen(2));
    expect(doBetParams(s)).toMatchObject({ type: SYSTEM, sys_bet: 3, bets: expect.arrayContaining([{ event_id: 1, price: 2, banker: true }]) });
    // a second banker is fine; a third would leave one other pick: refused
    s = reducer(s, betslipActions.bankerToggled(2));
    s = reducer(s, betslipActions.bankerToggled(3));
    expect(s.bankerBetsCount).toBe(2);
    // leaving system drops the bankers
    s = reducer(s, betslipActions.typeChosen(EXPRESS));
    expect(s.bankerBetsCount).toBe(0);
  });

  it('splits the stake over the combinations and sums their wins', () => {
    let s = run(...add(1, 2, 3), betslipActions.typeChosen(SYSTEM), betslipActions.stakeChanged('30'));
    expect(s.unitStake).toBe('10');
    expect(possibleWin({ type: SYSTEM, events: s.events, stake: '30', eachWay: false, sysK: 2 })).toBe('120.00'); // 3 x 10 x 4
    s = run(...add(1, 2, 3, 4), betslipActions.typeChosen(SYSTEM), betslipActions.systemChosen(3), betslipActions.stakeChanged('40'));
    expect(s.unitStake).toBe('10');
  });

  it('splits a total that does not divide as the server does: each line rounded down, the rest not taken', () => {
    const s = run(...add(1, 2, 3, 4), betslipActions.typeChosen(SYSTEM), betslipActions.stakeChanged('10'));
    expect(s.unitStake).toBe('1.66'); // 6 lines
    const figures = figuresOf({ type: SYSTEM, events: s.events, stake: '10', eachWay: false, sysK: 2 });
    expect(figures).toMatchObject({ lines: 6, unitStake: '1.66', stake: '9.96' });
  });

  it('holds each system combination to the odds limit, but not a chain', () => {
    const priced = (...prices: string[]) => prices.map((price, i) => ({
      eventId: i + 1, gameId: i + 1, price, initialPrice: price, base: null, initialBase: null, blocked: false, deleted: false,
      banker: false, ewAllowed: false, ewCoeff: null, conflicts: [],
    }));
    const rule = (type: 2 | 3 | 4, events: ReturnType<typeof priced>): RuleInput => ({ type, events, stake: '10', loggedIn: true, balance: '100', freeBet: false, sysK: 2 });
    expect(blockingMessage(rule(SYSTEM, priced('40', '30', '2', '1.5')))).toBe(MSG.oddsLimit); // 40 x 30 in one combination
    expect(blockingMessage(rule(CHAIN, priced('15', '20', '10')))).toBeNull(); // 3000, but a chain is no express
    expect(blockingMessage(rule(EXPRESS, priced('15', '20', '10')))).toBe(MSG.oddsLimit);
  });
});

describe('each-way', () => {
  it('doubles the total when switched on and halves it when off, keeping the unit', () => {
    let s = run(...add(1), betslipActions.stakeChanged('10'));
    s = reducer(s, betslipActions.eachWayToggled(true));
    expect(s).toMatchObject({ eachWayMode: true, stake: '20', unitStake: '10' });
    s = reducer(s, betslipActions.unitStakeChanged('15'));
    expect(s.stake).toBe('30');
    s = reducer(s, betslipActions.stakeChanged('50'));
    expect(s.unitStake).toBe('25');
    s = reducer(s, betslipActions.eachWayToggled(false));
    expect(s).toMatchObject({ eachWayMode: false, stake: '25', unitStake: '25' });
  });

  it('adds the place part at odds 1 + (price - 1) x ewCoeff', () => {
    const events = [{ price: '5', banker: false, ewCoeff: 0.25 }];
    // unit 10: win 10 x 5 + place 10 x (1 + 4 x 0.25)
    expect(possibleWin({ type: SINGLE, events, stake: '20', eachWay: true, sysK: 2 })).toBe('70.00');
    // 8.0 at 1/4: place odds 2.75
    expect(possibleWin({ type: SINGLE, events: [{ price: '8', banker: false, ewCoeff: 0.25 }], stake: '20', eachWay: true, sysK: 2 })).toBe('107.50');
  });

  it('takes each-way terms from the picked market', () => {
    const racing = toBetslipEvent({
      gameId: 1, marketId: 2, eventId: 3, price: '8.000', base: null, marketName: 'Winner', eventName: 'Silver Arrow',
      team1: 'Royal Downs Race 1', team2: '', isLive: false, ewAllowed: true, ewCoeff: 0.25, spAllowed: true,
    });
    expect(racing).toMatchObject({ ewAllowed: true, ewCoeff: 0.25, title: 'Royal Downs Race 1', pick: 'Silver Arrow' });
    const plain = toBetslipEvent({
      gameId: 1, marketId: 2, eventId: 4, price: '2', base: null, marketName: 'Match Result', eventName: 'W1',
      team1: 'A', team2: 'B', isLive: false,
    });
    expect(plain).toMatchObject({ ewAllowed: false, ewCoeff: null });
  });

  it('switches the free bet off', () => {
    let s = { ...run(...add(1)), hasFreeBets: true, freeBets: [{ id: 5, amount: '10' }] };
    s = reducer(s, betslipActions.freeBetToggled(true));
    expect(s).toMatchObject({ freeBet: true, selectedFreeBetId: 5 });
    s = reducer(s, betslipActions.eachWayToggled(true));
    expect(s.freeBet).toBe(false);
  });
});

describe('free bets and quick bet', () => {
  const withFree = (s: BetslipState) => reducer({ ...s, hasFreeBets: true, freeBets: [{ id: 5, amount: '10' }] }, betslipActions.freeBetToggled(true));
  it('switch the free bet off on a type change with several picks, on quick bet, and without free bets', () => {
    expect(reducer(withFree(run(...add(1, 2, 3))), betslipActions.typeChosen(SYSTEM)).freeBet).toBe(false);
    expect(reducer(withFree(run(...add(1))), betslipActions.quickBetToggled(true)).freeBet).toBe(false);
    expect(reducer(withFree(run(...add(1))), { type: 'session/profileLoaded', payload: { has_free_bets: false } }).freeBet).toBe(false);
    expect(reducer(run(...add(1)), betslipActions.freeBetToggled(true)).freeBet).toBe(false); // no free bets at all
    expect(doBetParams(withFree(run(...add(1))))).toMatchObject({ amount: 10, bonus_id: '5' });
  });

  it('turns quick bet off when the betslip closes', () => {
    const s = run(betslipActions.opened(), betslipActions.quickBetToggled(true), betslipActions.closed());
    expect(s.quickBet).toBe(false);
  });

  it('saves a quick stake rounded, never empty, zero or above the balance', () => {
    expect(QUICK_BET_STAKES).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]);
    expect(checkQuickStake('12.345', true, 100)).toEqual({ ok: true, stake: '12.35' });
    expect(checkQuickStake('', true, 100)).toEqual({ ok: false, key: null });
    expect(checkQuickStake('0', false, null)).toEqual({ ok: false, key: null });
    expect(checkQuickStake('500', true, 100)).toEqual({ ok: false, key: 'betslip.quick_balance_low' });
    expect(checkQuickStake('500', false, null)).toEqual({ ok: true, stake: '500' });
  });

  it('offers better odds on singles: +10% of the margin, rounded up (2 places above 10, else 3), none below 1.06', () => {
    expect(betterOdds('2.00')).toBe('2.1');
    expect(betterOdds('1.05')).toBeNull();
    // was Math.ceil to 11 while the server took 10.35: the bet was refused with 1800
    expect(betterOdds('9.5')).toBe('10.35');
    expect(betterOdds('1.85')).toBe('1.935');
    const s = run(...add(1), betslipActions.betterOddsToggled(true), betslipActions.stakeChanged('10'));
    expect(doBetParams(s)).toMatchObject({ is_offer: true, bets: [{ event_id: 1, price: 2.1, banker: false }] });
  });

  it('has quick amounts per currency', () => {
    expect(quickAmounts('CNY')).toEqual([100, 300, 500, 1000, 3000, 5000]);
    expect(quickAmounts('USD')).toEqual([20, 50, 100, 200, 500, 1000]);
    expect(quickAmounts('THB')).toEqual([100, 200, 500, 1000, 2000, 5000]);
  });
});

describe('price changes', () => {
  const feed = (price: string, extra: Partial<{ base: string | null; blocked: boolean }> = {}) =>
    betslipActions.feedUpdated({ events: { '1': { price, base: null, blocked: false, ...extra } }, ready: true });

  it('mode 0 asks for every change', () => {
    const s = run(...add(1), feed('2.5'));
    expect(s.events[0]).toMatchObject({ price: '2.5', initialPrice: '2.000' });
    expect(reducer(s, betslipActions.changesAccepted()).events[0]).toMatchObject({ price: '2.5', initialPrice: '2.5' });
  });

  it('mode 1 takes higher odds and asks for lower ones', () => {
    let s = run(...add(1), betslipActions.acceptModeChosen(1), feed('2.5'));
    expect(s.events[0]).toMatchObject({ initialPrice: '2.5' });
    s = reducer(s, feed('1.8'));
    expect(s.events[0]).toMatchObject({ price: '1.8', initialPrice: '2.5' });
  });

  it('mode 2 takes any move; choosing it accepts the pending ones', () => {
    let s = run(...add(1), betslipActions.acceptModeChosen(2), feed('1.5'));
    expect(s.events[0]).toMatchObject({ price: '1.5', initialPrice: '1.5' });
    s = run(...add(1), feed('1.5'), betslipActions.acceptModeChosen(2));
    expect(s.events[0]!.initialPrice).toBe('1.5');
    s = run(...add(1), feed('1.5'), betslipActions.acceptModeChosen(1));
    expect(s.events[0]!.initialPrice).toBe('2.000');
  });

  it('shows suspensions and removed events from the feed', () => {
    let s = run(...add(1, 2), feed('2.000', { blocked: true }));
    expect(s.events[0]).toMatchObject({ blocked: true, available: false });
    expect(s.events[1]).toMatchObject({ deleted: true });
    s = run(...add(1), betslipActions.feedUpdated({ events: {}, ready: false }));
    expect(s.events[0]!.deleted).toBe(false);
  });

  it('reads the nested feed with market bases and blocks from above', () => {
    const data = { game: { '5': { id: 5, is_blocked: false, market: { '50': { base: '2.5', is_suspended: true, event: { '1': { price: '1.9' } } },
      '51': { event: { '2': { price: '3.1', base: '-1', is_suspended: false } } } } }, '6': { is_blocked: true, market: { '60': { event: { '3': { price: '1.2' } } } } } } };
    expect(collectFeed(data)).toEqual({
      '1': { price: '1.9', base: '2.5', blocked: true },
      '2': { price: '3.1', base: '-1', blocked: false },
      '3': { price: '1.2', base: null, blocked: true },
    });
  });

  it('applies the new prices of a 1800 answer', () => {
    const s = run(...add(1), betslipActions.pricesChanged([{ event_id: 1, new_price: '1.75' }]));
    expect(s.events[0]).toMatchObject({ price: '1.75', initialPrice: '2.000' });
  });
});

describe('validation', () => {
  const base = (): RuleInput => ({ type: EXPRESS, events: run(...add(1, 2)).events, stake: '10', loggedIn: true, balance: 100, freeBet: false });
  const check = (patch: Partial<RuleInput>) => blockingMessage({ ...base(), ...patch });

  it('gives one message per reason, in order', () => {
    expect(check({})).toBeNull();
    expect(check({ events: [] })).toBe(MSG.empty);
    expect(check({ events: base().events.slice(0, 1) })).toBe(MSG.addMore);
    expect(check({ type: SYSTEM })).toBe(MSG.addMore);
    expect(check({ events: base().events.map((e, i) => ({ ...e, deleted: i === 0 })) })).toBe(MSG.notAvailable);
    expect(check({ events: base().events.map((e, i) => ({ ...e, blocked: i === 1 })) })).toBe(MSG.notAvailable);
    expect(check({ events: base().events.map((e) => ({ ...e, conflicts: [9] })) })).toBe(MSG.conflict);
    expect(check({ events: base().events.map((e) => ({ ...e, price: '2.2' })) })).toBe(MSG.priceChanged);
    expect(check({ events: base().events.map((e) => ({ ...e, base: '1.5' })) })).toBe(MSG.baseChanged);
    expect(check({ events: base().events.map((e) => ({ ...e, price: '40', initialPrice: '40' })) })).toBe(MSG.oddsLimit);
    expect(check({ loggedIn: false })).toBe(MSG.login);
    expect(check({ stake: '' })).toBe(MSG.setStake);
    expect(check({ stake: '0' })).toBe(MSG.setStake);
    expect(check({ stake: '100.01' })).toBe(MSG.insufficient);
    expect(check({ stake: '', freeBet: true })).toBeNull();
  });

  it('has every betslip message of spec 000 section 5 in English', async () => {
    const { readSkin } = await import('../../test/skins');
    const eng = readSkin<Record<string, string>>('languages/eng.json');
    const texts = Object.values(eng);
    for (const text of [
      'Betslip is empty.To select a bet, please click on any odd.', 'Some events in betslip are not available at the moment.',
      'Some events in betslip have changed price.', 'Some events in betslip have changed base.',
      'Some events in betslip conflict with others.', 'Set stake to place a bet.', 'Insufficient balance.', 'Odds limit exceeded.',
      'You need to login to be able to place a bet.', 'Add more events to place a bet.', 'This bet cannot be combined with:',
      'Event is blocked.', 'Event is not available.', 'Bet accepted.', 'Your balance less, top up your balance now.',
    ]) expect(texts).toContain(text);
    for (const key of Object.values(MSG)) expect(eng[key], key).toBeTruthy();
  });
});

describe('virtual keyboard', () => {
  const type = (keys: string) => [...keys].reduce((v, k) => applyKey(v, k as never), '');
  it('allows one decimal point and the currency places', () => {
    expect(type('12.5.3')).toBe('12.53');
    expect(type('.5')).toBe('0.5');
    expect(type('1.999')).toBe('1.99');
    expect(type('007')).toBe('7');
  });
  it('stops at 10 characters', () => {
    expect(type('12345678901234')).toHaveLength(KEYBOARD_MAX_CHARS);
    expect(type('1234567.891')).toBe('1234567.89');
  });
  it('deletes and clears', () => {
    expect(applyKey('12.5', 'del')).toBe('12.');
    expect(applyKey('12.5', 'clear')).toBe('');
    expect(sanitizeStake('1a2,3.4.5')).toBe('123.45');
  });
});

import { useRef, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { NAMED_ERRORS } from '../../api/errors';
import { formatMoney } from '../../shared/money';
import { STANDARD_LADDER, formatOdds } from '../../shared/odds';
import { useT } from '../i18n/useT';
import { selectionsActions } from '../selections/selectionsSlice';
import { uiActions } from '../shell/uiSlice';
import { betslipActions, type BetslipEvent, type SlipMessage } from './betslipSlice';
import {
  CHAIN, EXPRESS, MSG, QUICK_BET_STAKES, SINGLE, SYSTEM, applyKey, baseChanged, checkQuickStake, isSp, minEvents, priceChanged,
  sanitizeStake, type AcceptMode, type BetType, type KeyboardKey,
} from './calc';
import { selectBetslip, selectSlipView, selectStakeBalance } from './selectors';

const TYPES: BetType[] = [SINGLE, EXPRESS, SYSTEM, CHAIN];
export const TYPE_KEYS: Record<BetType, string> = {
  1: 'betslip.type.single', 2: 'betslip.type.express', 3: 'betslip.type.system', 4: 'betslip.type.chain',
};

/** The betslip sheet (spec 000 sections 3-5). */
export function BetslipPanel() {
  const t = useT();
  const dispatch = useAppDispatch();
  const slip = useAppSelector(selectBetslip);
  const view = useAppSelector(selectSlipView);
  const [keyboard, setKeyboard] = useState(false);
  const close = () => dispatch(betslipActions.closed());
  const changed = slip.events.some((e) => priceChanged(e) || baseChanged(e));
  const stakeLocked = slip.freeBet || slip.events.some((e) => e.deleted);
  const shown: SlipMessage | null = slip.message ?? (view.message && view.message !== MSG.empty ? { key: view.message, action: messageAction(view.message) } : null);

  return (
    <div className="overlay overlay--sheet slip-overlay" role="dialog" aria-modal="true" aria-label={t('betslip.title')} data-testid="betslip">
      <button type="button" className="slip-overlay__scrim" aria-label={t('common.close')} onClick={close} />
      <div className="sheet slip">
        <div className="sheet__head">
          <h2 className="sheet__title">{t('betslip.title')} <span className="slip__count">{view.count}</span></h2>
          <button type="button" className="sheet__close" aria-label={t('common.close')} data-testid="betslip-close" onClick={close}>×</button>
        </div>
        <div className="sheet__body slip__body">
          <Toggles />
          {slip.quickBet ? (
            <QuickBetSettings />
          ) : view.count === 0 ? (
            <>
              <p className="slip__empty" data-testid="betslip-empty">{t(MSG.empty)}</p>
              <LoadBooking />
            </>
          ) : (
            <>
              <nav className="seg slip__types" aria-label={t('betslip.bet_type')}>
                {TYPES.map((type) => {
                  const disabled = type === SINGLE ? view.count > 1 : view.count < minEvents(type) && type !== view.type;
                  return (
                    <button key={type} type="button" disabled={disabled} data-testid={`bet-type-${type}`}
                      className={type === view.type ? 'seg__item is-active' : 'seg__item'}
                      onClick={() => dispatch(betslipActions.typeChosen(type))}>{t(TYPE_KEYS[type])}</button>
                  );
                })}
              </nav>
              <ul className="slip__events">
                {slip.events.map((e) => <SlipEvent key={e.eventId} event={e} system={view.type === SYSTEM} all={slip.events} />)}
              </ul>
              {view.type === SYSTEM && view.systemOptions.length > 0 && (
                <label className="slip__row">
                  <span>{t('betslip.system')}</span>
                  <select value={slip.sysOptionValue} data-testid="system-select"
                    onChange={(e) => dispatch(betslipActions.systemChosen(Number(e.target.value)))}>
                    {view.systemOptions.map((o) => (
                      <option key={o.k} value={o.k}>{t('betslip.system_option', o.k, o.n, o.combos)}</option>
                    ))}
                  </select>
                </label>
              )}
              <label className="slip__row">
                <span>{t('betslip.accept_changes_mode')}</span>
                <select value={slip.acceptPriceChanges} data-testid="accept-mode"
                  onChange={(e) => dispatch(betslipActions.acceptModeChosen(Number(e.target.value) as AcceptMode))}>
                  <option value={0}>{t('betslip.accept.0')}</option>
                  <option value={1}>{t('betslip.accept.1')}</option>
                  <option value={2}>{t('betslip.accept.2')}</option>
                </select>
              </label>
              <StakeInput locked={stakeLocked} keyboard={keyboard} setKeyboard={setKeyboard} />
              <dl className="slip__summary">
                {view.totalOdds !== null ? (
                  <><dt>{t('betslip.total_odds')}</dt><dd data-testid="total-odds">{formatOdds(view.totalOdds, 'decimal')}</dd></>
                ) : view.sp && view.type !== SYSTEM && (
                  <><dt>{t('betslip.total_odds')}</dt><dd data-testid="total-odds" title={t('betslip.sp_unknown')}>-</dd></>
                )}
                {view.type === SYSTEM && (<><dt>{t('betslip.bets')}</dt><dd data-testid="bet-count">{view.bets}</dd></>)}
                {view.lines > 1 && view.unitStake !== '' && (
                  <>
                    <dt>{t('betslip.unit_stake')}</dt><dd data-testid="unit-stake">{formatMoney(view.unitStake)}</dd>
                    <dt>{t('betslip.total_stake')}</dt><dd data-testid="total-stake">{formatMoney(view.charged)} {view.currency}</dd>
                  </>
                )}
                <dt>{t('betslip.possible_win')}</dt>
                {view.possibleWin === null ? (
                  <dd className="slip__win" data-testid="possible-win" title={t('betslip.sp_unknown')}>-</dd>
                ) : (
                  <dd className="slip__win" data-testid="possible-win">{formatMoney(view.possibleWin)} {view.currency}</dd>
                )}
              </dl>
              {shown && <Message message={shown} />}
              {changed && !shown?.action && (
                <button type="button" className="btn btn--gold btn--block slip__accept" data-testid="accept-changes"
                  onClick={() => dispatch(betslipActions.changesAccepted())}>{t('betslip.accept_changes')}</button>
              )}
              <div className="slip__actions">
                <button type="button" className="btn btn--ghost-dark btn--sm" data-testid="remove-all"
                  onClick={() => dispatch(selectionsActions.cleared())}>{t('betslip.remove_all')}</button>
                <button type="button" className="btn btn--ghost-dark btn--sm" data-testid="booking"
                  disabled={slip.bookingBet.loading || view.count === 0}
                  onClick={() => dispatch(betslipActions.bookingRequested())}>{t('betslip.booking')}</button>
              </div>
              {slip.bookingBet.id && <BookingId id={slip.bookingBet.id} />}
              <button type="button" className="btn btn--primary btn--block slip__place" data-testid="place-bet"
                disabled={!view.canPlace} onClick={() => dispatch(betslipActions.placeRequested())}>
                {slip.betState === 'loading' ? t('betslip.placing') : t('betslip.place_bet')}
              </button>
            </>
          )}
        </div>
      </div>
    </div>
  );
}

/** The booking id of the picks as they are, selectable and copyable. */
function BookingId({ id }: { id: string }) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      setCopied(true);
    } catch {
      // No clipboard API (plain http): copy the selected field instead.
      input.current?.select();
      setCopied(document.execCommand('copy'));
    }
  };
  return (
    <div className="slip__booking" data-testid="booking-box">
      <p className="slip__booking-text">{t('betslip.booking_saved')}</p>
      <div className="slip__booking-row">
        <input ref={input} className="slip__booking-id" readOnly value={id} aria-label={t('betslip.booking')} data-testid="booking-id"
          onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="btn btn--gold btn--sm" data-testid="booking-copy" onClick={() => void copy()}>
          {copied ? t('betslip.booking_copied') : t('betslip.booking_copy')}
        </button>
      </div>
    </div>
  );
}

/** 'Load booking' in the empty slip: get_booking adds the booked picks at current prices. */
function LoadBooking() {
  const t = useT();
  const dispatch = useAppDispatch();
  const load = useAppSelector((s) => s.betslip.bookingLoad);
  const [id, setId] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (id.trim() !== '' && !load.loading) dispatch(betslipActions.bookingLoadRequested(id));
  };
  return (
    <form className="slip__booking" data-testid="load-booking" onSubmit={submit}>
      <div className="slip__booking-row">
        <input className="slip__booking-id" value={id} maxLength={16} autoComplete="off" autoCapitalize="characters" spellCheck={false}
          placeholder={t('betslip.booking_load_placeholder')} aria-label={t('betslip.booking_load_placeholder')} data-testid="booking-input"
          onChange={(e) => setId(e.target.value)} />
        <button type="submit" className="btn btn--gold btn--sm" data-testid="booking-load" disabled={load.loading || id.trim() === ''}>
          {t('betslip.booking_load')}
        </button>
      </div>
      {load.message && (
        <p className="slip-event__warn" role="alert" data-testid="booking-load-error">
          {load.message.key ? t(load.message.key, ...(load.message.args ?? [])) : load.message.text}
        </p>
      )}
    </form>
  );
}

const messageAction = (key: string): SlipMessage['action'] =>
  key === MSG.insufficient ? 'deposit' : key === MSG.login ? 'login' : key === MSG.priceChanged || key === MSG.baseChanged ? 'accept' : undefined;

function Message({ message }: { message: SlipMessage }) {
  const t = useT();
  const dispatch = useAppDispatch();
  return (
    <div className="slip__message" role="alert" data-testid="betslip-message" data-key={message.key}>
      <span>{message.key ? t(message.key, ...(message.args ?? [])) : message.text}</span>
      {message.action === 'deposit' && (
        <Link href="/usercenter/deposit" className="btn btn--gold btn--sm" data-testid="deposit-link"
          onClick={() => dispatch(betslipActions.closed())}>{t('betslip.deposit')}</Link>
      )}
      {message.action === 'login' && (
        <button type="button" className="btn btn--gold btn--sm" data-testid="betslip-login"
          onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>{t('header.login')}</button>
      )}
      {message.action === 'superBet' && (
        <button type="button" className="btn btn--gold btn--sm" data-testid="place-super-bet"
          onClick={() => dispatch(betslipActions.superBetPlaceRequested())}>{t('betslip.super_bet_place')}</button>
      )}
      {message.action === 'accept' && (
        <button type="button" className="btn btn--gold btn--sm" data-testid="accept-changes"
          onClick={() => dispatch(betslipActions.changesAccepted())}>{t('betslip.accept_changes')}</button>
      )}
    </div>
  );
}


function SlipEvent({ event: e, system, all }: { event: BetslipEvent; system: boolean; all: BetslipEvent[] }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const format = useAppSelector((s) => s.sport.oddsFormat);
  const ladder = useAppSelector((s) => s.sport.fractionalLadder);
  const sp = isSp(e);
  const moved = priceChanged(e) ? (Number(e.price) > Number(e.initialPrice) ? 'up' : 'down') : null;
  const conflicting = all.filter((o) => e.conflicts.includes(o.eventId));
  return (
    <li className={`slip-event${e.available ? '' : ' is-unavailable'}`} data-testid="betslip-event" data-event={e.eventId}>
      <div className="slip-event__top">
        {system && (
          <button type="button" className={e.banker ? 'slip-event__banker is-on' : 'slip-event__banker'} aria-pressed={e.banker}
            title={t('betslip.banker')} data-testid="banker" onClick={() => dispatch(betslipActions.bankerToggled(e.eventId))}>B</button>
        )}
        <strong className="slip-event__pick">{e.pick}{e.base && baseChanged(e) ? ` (${e.base})` : ''}</strong>
        {e.spAllowed && (
          <button type="button" className={sp ? 'slip-event__banker slip-event__sp is-on' : 'slip-event__banker slip-event__sp'} aria-pressed={sp}
            title={t('betslip.sp_title')} aria-label={t('betslip.sp_title')} data-testid="sp-toggle"
            onClick={() => dispatch(betslipActions.spToggled({ eventId: e.eventId, on: !sp }))}>{t('betslip.sp')}</button>
        )}
        <span className={`slip-event__price${moved ? ` price--${moved}` : ''}${e.spAllowed ? ' slip-event__price--sp' : ''}`} data-testid="slip-price">
          {sp ? t('betslip.sp') : formatOdds(e.price, format, ladder ? STANDARD_LADDER : null)}
          {moved && <span aria-hidden="true">{moved === 'up' ? ' ▲' : ' ▼'}</span>}
        </span>
        <button type="button" className="slip-event__remove" aria-label={t('betslip.remove')} data-testid="remove-event"
          onClick={() => dispatch(selectionsActions.removed(e.eventId))}>×</button>
      </div>
      <div className="slip-event__market">{e.marketName}{sp && <> · {t('betslip.sp_note')}</>}</div>
      <div className="slip-event__title">{e.isLive && <span className="live-pill">{t('sport.live')}</span>} {e.title}</div>
      {e.blocked && !e.deleted && <p className="slip-event__warn">{t(e.base !== null ? NAMED_ERRORS.EVENT_LOCKED : 'betslip.event_blocked')}</p>}
      {e.deleted && <p className="slip-event__warn">{t('betslip.event_not_available')}</p>}
      {conflicting.length > 0 && (
        <p className="slip-event__warn">{t('betslip.cannot_combine')} {conflicting.map((o) => o.pick).join(', ')}</p>
      )}
    </li>
  );
}

function Toggles() {
  const t = useT();
  const dispatch = useAppDispatch();
  const slip = useAppSelector(selectBetslip);
  const view = useAppSelector(selectSlipView);
  return (
    <div className="slip__toggles">
      <Switch label={t('betslip.quick_bet')} on={slip.quickBet} testId="quick-bet-toggle"
        onChange={(v) => dispatch(betslipActions.quickBetToggled(v))} />
      {!slip.quickBet && view.type === SINGLE && view.count === 1 && !view.sp && (
        <Switch label={t('betslip.better_odds')} on={slip.betterOddSelectionMode} testId="better-odds"
          onChange={(v) => dispatch(betslipActions.betterOddsToggled(v))} />
      )}
      {!slip.quickBet && view.eachWayAvailable && (
        <Switch label={t('betslip.each_way')} on={slip.eachWayMode} testId="each-way"
          onChange={(v) => dispatch(betslipActions.eachWayToggled(v))} />
      )}
      {!slip.quickBet && slip.hasFreeBets && (
        <Switch label={t('betslip.free_bet')} on={slip.freeBet} testId="free-bet"
          onChange={(v) => dispatch(betslipActions.freeBetToggled(v))} />
      )}
    </div>
  );
}

function Switch({ label, on, onChange, testId }: { label: string; on: boolean; onChange: (v: boolean) => void; testId: string }) {
  return (
    <label className="switch">
      <input type="checkbox" checked={on} data-testid={testId} onChange={(e) => onChange(e.target.checked)} />
      <span className="switch__track" aria-hidden="true" />
      <span>{label}</span>
    </label>
  );
}

function StakeInput({ locked, keyboard, setKeyboard }: { locked: boolean; keyboard: boolean; setKeyboard: (v: boolean) => void }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const slip = useAppSelector(selectBetslip);
  const view = useAppSelector(selectSlipView);
  const value = slip.freeBet ? (slip.selectedFreeBetAmount ?? '') : slip.eachWayMode ? slip.unitStake : slip.stake;
  const set = (v: string) => dispatch(slip.eachWayMode ? betslipActions.unitStakeChanged(v) : betslipActions.stakeChanged(v));
  return (
    <div className="stake">
      <div className="stake__row">
        <label className="stake__field">
          <span className="stake__label">{slip.eachWayMode ? t('betslip.unit_stake') : t('betslip.stake')}</span>
          <input type="text" inputMode="none" autoComplete="off" value={value} disabled={locked} data-testid="stake-input"
            placeholder={t('betslip.stake_placeholder')} onFocus={() => setKeyboard(true)} onClick={() => setKeyboard(true)}
            onChange={(e) => set(sanitizeStake(e.target.value))} />
          <span className="stake__currency">{view.currency}</span>
        </label>
        <button type="button" className="btn btn--ghost-dark btn--sm" data-testid="max-button" disabled={locked || slip.maxBetLoading || view.count === 0}
          onClick={() => dispatch(betslipActions.maxBetRequested())}>{t('betslip.max')}</button>
      </div>
      <div className="stake__quick">
        {view.quickAmounts.map((a) => (
          <button key={a} type="button" className="chip" disabled={locked} data-testid="quick-amount" onClick={() => set(String(a))}>{a}</button>
        ))}
      </div>
      {keyboard && !locked && <Keyboard value={value} onChange={set} onDone={() => setKeyboard(false)} />}
    </div>
  );
}

const KEYS: KeyboardKey[] = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '.', '0', 'del'];

/** The virtual keyboard: at most 10 characters and one decimal point. */
export function Keyboard({ value, onChange, onDone }: { value: string; onChange: (v: string) => void; onDone: () => void }) {
  const t = useT();
  return (
    <div className="keyboard" data-testid="keyboard">
      {KEYS.map((k) => (
        <button key={k} type="button" className="keyboard__key" data-testid={`kb-${k}`} onClick={() => onChange(applyKey(value, k))}>
          {k === 'del' ? '⌫' : k}
        </button>
      ))}
      <button type="button" className="keyboard__key keyboard__done" data-testid="kb-done" onClick={onDone}>{t('betslip.done')}</button>
    </div>
  );
}

function QuickBetSettings() {
  const t = useT();
  const dispatch = useAppDispatch();
  const slip = useAppSelector(selectBetslip);
  const loggedIn = useAppSelector((s) => s.session.auth !== null);
  const balance = useAppSelector(selectStakeBalance);
  const [draft, setDraft] = useState(slip.quickBetStake);
  const [error, setError] = useState<string | null>(null);
  const save = (value: string) => {
    const check = checkQuickStake(value, loggedIn, balance);
    if (!check.ok) return setError(check.key);
    setError(null);
    setDraft(check.stake);
    dispatch(betslipActions.quickBetStakeSaved(check.stake));
  };
  return (
    <div className="quick-bet" data-testid="quick-bet">
      <p className="quick-bet__hint">{t('betslip.quick_bet_hint', slip.quickBetStake)}</p>
      <div className="stake__quick">
        {QUICK_BET_STAKES.map((a) => (
          <button key={a} type="button" className={String(a) === slip.quickBetStake ? 'chip is-active' : 'chip'} onClick={() => save(String(a))}>{a}</button>
        ))}
      </div>
      <div className="stake__row">
        <input className="quick-bet__input" type="text" inputMode="decimal" value={draft} onChange={(e) => setDraft(sanitizeStake(e.target.value))} />
        <button type="button" className="btn btn--gold btn--sm" onClick={() => save(draft)}>{t('betslip.save')}</button>
      </div>
      {error && <p className="slip__message" role="alert">{t(error)}</p>}
    </div>
  );
}

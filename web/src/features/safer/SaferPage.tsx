/**
 * /setting/safergambling (DESIGN.md "Responsible gambling (wire contract)"): the member's
 * limits and the form that sets, changes or removes one, a time-out, a self-exclusion (each
 * behind a confirmation that says what it means), the reality check interval, the 12-month
 * statement. A running time-out or self-exclusion shows first.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { SCROLL_TOP_MS } from '../../app/router';
import { useSaga } from '../../app/useSaga';
import { ErrorText, SubmitButton, TextField } from '../../components/form';
import type { Message } from '../../api/errors';
import { formatMoney } from '../../shared/money';
import { MemberPage } from '../account/settings/SettingsPages';
import { errorText, useT } from '../i18n/useT';
import { ExclusionSection, TimeoutSection } from './BreakSections';
import { keepDates } from './dates';
import { LimitsTable } from './LimitsTable';
import {
  LIMIT_KINDS, LIMIT_PERIODS, REALITY_CHECK_MINUTES, STATEMENT_ANCHOR, changeTiming, dateText, limitAmountProblem, limitOf,
  restrictionOf, type LimitKind, type LimitPeriod, type RgSettings,
} from './model';
import { Outcome, Section, SelectField } from './parts';
import { saferSaga } from './sagas';
import { saferActions as safer, selectSafer } from './saferSlice';
import { selectBusy, selectOutcomeOf } from './selectors';
import './safer.css';

const limitOutcome = selectOutcomeOf(['limit', 'remove']);
const realityOutcome = selectOutcomeOf(['realitycheck']);
const statementOutcome = selectOutcomeOf(['statement']);

export function SaferGamblingPage() {
  const t = useT();
  const running = useSaga(saferSaga);
  return <MemberPage title={t('rg.title')}>{running && <SaferContent />}</MemberPage>;
}

/** Opens the section the address names (#statement from the reality check) once the page has drawn. */
function useAnchorScroll(ready: boolean) {
  useEffect(() => {
    const id = window.location.hash.slice(1);
    if (!ready || !id) return;
    // after the scroll to the top that every path change runs
    const timer = setTimeout(() => document.getElementById(id)?.scrollIntoView?.({ block: 'start' }), SCROLL_TOP_MS + 50);
    return () => clearTimeout(timer);
  }, [ready]);
}

function SaferContent() {
  const t = useT();
  const dispatch = useAppDispatch();
  const { settings, status, error } = useAppSelector(selectSafer);
  useEffect(() => {
    dispatch(safer.loadRequested());
  }, [dispatch]);
  useAnchorScroll(settings !== null);
  if (!settings) {
    if (status !== 'error' || !error) return <div className="page-loading" aria-busy="true" />;
    return (
      <div className="rg-failed">
        <ErrorText error={errorText(t, error)} testId="rg-load-error" />
        <button type="button" className="btn btn--ghost-dark btn--sm" onClick={() => dispatch(safer.loadRequested())}>{t('boot.error.retry')}</button>
      </div>
    );
  }
  return (
    <div className="rg" data-testid="safer-page">
      <RestrictionBanner settings={settings} />
      <LimitsSection settings={settings} />
      <TimeoutSection />
      <ExclusionSection />
      <RealityCheckSection settings={settings} />
      <StatementSection />
    </div>
  );
}

/** A running self-exclusion or time-out, with its end. */
export function RestrictionBanner({ settings }: { settings: RgSettings }) {
  const t = useT();
  // read once per draw of the settings: a banner that outlives its end goes with the next answer
  const [now] = useState(() => Date.now());
  const restriction = restrictionOf(settings, now);
  if (!restriction) return null;
  const prefix = restriction.kind === 'timeout' ? 'rg.banner.timeout' : 'rg.banner.self_exclusion';
  return (
    <div className={`rg-banner rg-banner--${restriction.kind}`} role="status" data-testid="rg-restriction" data-kind={restriction.kind}>
      <strong className="rg-banner__title" data-testid="rg-restriction-until">{keepDates(t(prefix, dateText(restriction.until)))}</strong>
      <span>{t('rg.banner.closed')}</span>
      <span>{t('rg.banner.open')}</span>
    </div>
  );
}

/** The confirmation under the limit form once a change went through: at once, or when it applies. */
export function limitDone(settings: RgSettings, kind: LimitKind, period: LimitPeriod): Message {
  const limit = limitOf(settings.limits, kind, period);
  if (limit?.pending) {
    return limit.pending.amount === null
      ? { key: 'rg.limits.done_remove', args: [dateText(limit.pending.effective_at)] }
      : { key: 'rg.limits.done_later', args: [formatMoney(limit.pending.amount), dateText(limit.pending.effective_at)] };
  }
  return limit ? { key: 'rg.limits.done_now', args: [formatMoney(limit.amount)] } : { key: 'rg.limits.done_removed', args: [] };
}

function LimitsSection({ settings }: { settings: RgSettings }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const busy = useAppSelector(selectBusy);
  const outcome = useAppSelector(limitOutcome);
  const [kind, setKind] = useState<LimitKind>('deposit');
  const [period, setPeriod] = useState<LimitPeriod>('day');
  const [amount, setAmount] = useState('');
  const [touched, setTouched] = useState(false);
  const current = limitOf(settings.limits, kind, period);
  const problem = limitAmountProblem(amount);
  const timing = problem ? null : changeTiming(current, amount);
  const edited = () => {
    setTouched(false);
    if (outcome) dispatch(safer.actionCleared());
  };
  const choose = (k: LimitKind, p: LimitPeriod) => {
    setKind(k);
    setPeriod(p);
    setAmount('');
    edited();
    document.getElementById('rg-limit-form')?.scrollIntoView?.({ block: 'center' });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (problem || busy) return;
    dispatch(safer.limitSetRequested({ kind, period, amount }));
  };
  const remove = () => {
    if (!busy) dispatch(safer.limitSetRequested({ kind, period, amount: '' }));
  };
  const currency = settings.currency;
  return (
    <Section id="limits" title={t('rg.limits.title')} intro={t('rg.limits.intro')} testId="rg-limits-section">
      <LimitsTable limits={settings.limits} currency={currency} onChoose={choose} />
      <form className="form rg-form" id="rg-limit-form" onSubmit={submit} noValidate data-testid="rg-limit-form">
        <h3 className="rg-form__title">{t('rg.limits.form_title')}</h3>
        <div className="form__grid">
          <SelectField name="rg-kind" label={t('rg.limits.kind')} value={kind}
            options={LIMIT_KINDS.map((k) => ({ value: k, label: t(`rg.kind.${k}`) }))} onChange={(k) => { setKind(k); edited(); }} />
          <SelectField name="rg-period" label={t('rg.limits.period')} value={period}
            options={LIMIT_PERIODS.map((p) => ({ value: p, label: t(`rg.period.${p}`) }))} onChange={(p) => { setPeriod(p); edited(); }} />
        </div>
        <p className="rg-form__current" data-testid="rg-limit-current">
          {current ? t('rg.limits.current', `${formatMoney(current.amount)} ${currency}`.trim()) : t('rg.limits.current_none')}
        </p>
        <TextField name="rg-amount" label={t('rg.limits.amount', currency)} value={amount} inputMode="decimal" autoComplete="off"
          onChange={(v) => { setAmount(v.replace(/[^\d.]/g, '')); edited(); }} onBlur={() => amount && setTouched(true)}
          error={touched ? problem : null} />
        {timing && (
          <p className="form__note" data-testid="rg-limit-timing">{t(timing === 'now' ? 'rg.limits.applies_now' : 'rg.limits.applies_later')}</p>
        )}
        <Outcome outcome={outcome} testId="rg-limit" done={outcome?.status === 'done' ? limitDone(settings, kind, period) : null} />
        <div className="rg-actions">
          <SubmitButton pending={busy} testId="rg-limit-save">{t('rg.limits.save')}</SubmitButton>
          {current && !(current.pending && current.pending.amount === null) && (
            <button type="button" className="btn btn--ghost-dark btn--block" disabled={busy} data-testid="rg-limit-remove" onClick={remove}>
              {t('rg.limits.remove')}
            </button>
          )}
        </div>
        <p className="rg-hint">{t('rg.limits.rule')}</p>
      </form>
    </Section>
  );
}

/** 'Off', '10 minutes' ... '8 hours'. */
export function intervalLabel(t: (key: string, ...args: Array<string | number>) => string, minutes: number) {
  return t(`rg.reality.every.${minutes}`);
}

function RealityCheckSection({ settings }: { settings: RgSettings }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const busy = useAppSelector(selectBusy);
  const outcome = useAppSelector(realityOutcome);
  const saved = settings.reality_check_minutes;
  const [minutes, setMinutes] = useState<number>(REALITY_CHECK_MINUTES.includes(saved as never) ? saved : 0);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!busy) dispatch(safer.realityCheckRequested(minutes));
  };
  return (
    <Section id="reality" title={t('rg.reality.section')} intro={t('rg.reality.intro')} testId="rg-reality-section">
      <form className="form" onSubmit={submit} noValidate>
        <p className="rg-form__current" data-testid="rg-reality-current">{t('rg.reality.current', intervalLabel(t, saved))}</p>
        <SelectField name="rg-reality" label={t('rg.reality.interval')} value={minutes}
          options={REALITY_CHECK_MINUTES.map((m) => ({ value: m, label: intervalLabel(t, m) }))}
          onChange={(m) => { setMinutes(m); if (outcome) dispatch(safer.actionCleared()); }} />
        <Outcome outcome={outcome} testId="rg-reality" done={{ key: 'rg.reality.saved', args: [intervalLabel(t, saved)] }} />
        <SubmitButton pending={busy} testId="rg-reality-save">{t('common.save')}</SubmitButton>
      </form>
    </Section>
  );
}

function StatementSection() {
  const t = useT();
  const dispatch = useAppDispatch();
  const busy = useAppSelector(selectBusy);
  const outcome = useAppSelector(statementOutcome);
  return (
    <Section id={STATEMENT_ANCHOR} title={t('rg.statement.title')} intro={t('rg.statement.intro')} testId="rg-statement-section">
      <Outcome outcome={outcome} testId="rg-statement" done={{ key: 'rg.statement.done', args: [] }} />
      <button type="button" className="btn btn--primary btn--block" disabled={busy} aria-busy={outcome?.status === 'pending'}
        data-testid="rg-statement-download" onClick={() => dispatch(safer.statementRequested())}>
        {t('rg.statement.download')}
      </button>
    </Section>
  );
}

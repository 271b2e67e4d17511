/**
 * A time-out (24 hours to 6 weeks) and a self-exclusion (6 months to 5 years): the member picks
 * a length, then a confirmation says what it means, when it ends, and that it cannot be undone
 * (a self-exclusion cannot be shortened or lifted either) before the call goes out.
 */
import { useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Popup } from '../../components/form';
import { useT } from '../i18n/useT';
import { EXCLUSION_MONTHS, TIMEOUT_HOURS, dateText, exclusionEnd, timeoutEnd } from './model';
import { keepDates } from './dates';
import { Outcome, Section } from './parts';
import { saferActions as safer } from './saferSlice';
import { selectBusy, selectOutcomeOf, selectSettings } from './selectors';

type Kind = 'timeout' | 'selfexclude';

const timeoutOutcome = selectOutcomeOf(['timeout']);
const exclusionOutcome = selectOutcomeOf(['selfexclude']);

/** What the confirmation says for a length chosen at `nowMs` (language-file keys): the length, the end, what it closes and keeps open, and that it is final. */
export function confirmation(kind: Kind, length: number, nowMs: number) {
  const until = dateText(kind === 'timeout' ? timeoutEnd(length, nowMs) : exclusionEnd(length, nowMs));
  const prefix = kind === 'timeout' ? 'rg.timeout' : 'rg.exclusion';
  return {
    titleKey: `${prefix}.confirm_title`, lengthKey: `${prefix}.length.${length}`, until,
    lines: ['rg.confirm.closed', 'rg.confirm.open', `${prefix}.final`],
  };
}

function BreakSection({ kind }: { kind: Kind }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const busy = useAppSelector(selectBusy);
  const outcome = useAppSelector(kind === 'timeout' ? timeoutOutcome : exclusionOutcome);
  const settings = useAppSelector(selectSettings);
  const lengths: readonly number[] = kind === 'timeout' ? TIMEOUT_HOURS : EXCLUSION_MONTHS;
  const prefix = kind === 'timeout' ? 'rg.timeout' : 'rg.exclusion';
  const [length, setLength] = useState<number>(lengths[0]!);
  // the confirmation on screen, with the moment it was asked (its end date counts from then)
  const [asked, setAsked] = useState<{ length: number; at: number } | null>(null);
  const confirm = () => {
    if (!asked || busy) return;
    dispatch(kind === 'timeout' ? safer.timeoutRequested(asked.length) : safer.selfExcludeRequested(asked.length));
    setAsked(null);
  };
  const until = kind === 'timeout' ? settings?.timeout_until : settings?.self_excluded_until;
  const text = asked ? confirmation(kind, asked.length, asked.at) : null;
  return (
    <Section id={kind === 'timeout' ? 'timeout' : 'exclusion'} title={t(`${prefix}.title`)} intro={t(`${prefix}.intro`)} testId={`rg-${kind}-section`}>
      <div className="rg-choices" role="radiogroup" aria-label={t(`${prefix}.length`)}>
        {lengths.map((n) => (
          <button key={n} type="button" role="radio" aria-checked={length === n} data-testid={`rg-${kind}-${n}`}
            className={length === n ? 'chip is-active' : 'chip'} onClick={() => { setLength(n); if (outcome) dispatch(safer.actionCleared()); }}>
            {t(`${prefix}.length.${n}`)}
          </button>
        ))}
      </div>
      <Outcome outcome={outcome} testId={`rg-${kind}`}
        done={until ? { key: `${prefix}.done`, args: [dateText(until)] } : null} />
      <button type="button" className="btn btn--primary btn--block" disabled={busy} data-testid={`rg-${kind}-start`}
        onClick={() => setAsked({ length, at: Date.now() })}>
        {t(`${prefix}.start`, t(`${prefix}.length.${length}`))}
      </button>
      {asked && text && (
        <Popup title={t(text.titleKey, t(text.lengthKey))} onClose={() => setAsked(null)} testId="rg-confirm">
          <p className="sheet__text" data-testid="rg-confirm-until"><strong>{keepDates(t(`${prefix}.until`, text.until))}</strong></p>
          <ul className="rg-confirm__list">
            {text.lines.map((key) => <li key={key} data-testid={`rg-confirm-${key.split('.').pop()}`}>{t(key)}</li>)}
          </ul>
          <div className="sheet__actions">
            <button type="button" className="btn btn--ghost-dark" autoFocus data-testid="rg-confirm-cancel" onClick={() => setAsked(null)}>
              {t('common.cancel')}
            </button>
            <button type="button" className="btn btn--gold" data-testid="rg-confirm-ok" disabled={busy} onClick={confirm}>
              {t(`${prefix}.confirm`)}
            </button>
          </div>
        </Popup>
      )}
    </Section>
  );
}

export const TimeoutSection = () => <BreakSection kind="timeout" />;
export const ExclusionSection = () => <BreakSection kind="selfexclude" />;

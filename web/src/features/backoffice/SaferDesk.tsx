/**
 * The safer gambling desk (role support or admin; DESIGN.md "Responsible gambling"): a member
 * looked up by user id (/backoffice/safer/{userId}) with their limits, time-out, self-exclusion
 * and reality check, the history of changes, their statement, and a time-out staff START with a
 * reason (there is no way to lift one). Plain calls to /api/backoffice (like the finance desk);
 * the rules are in ./saferDesk.ts.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useAppSelector } from '../../app/hooks';
import { navigate } from '../../app/router';
import { saveBlob } from '../../shared/download';
import { useT } from '../i18n/useT';
import { LimitsTable } from '../safer/LimitsTable';
import { TIMEOUT_HOURS, restrictionOf } from '../safer/model';
import { boFetch, boFetchBlob, toBoError, type BoError } from './api';
import { selectBackoffice } from './backofficeSlice';
import { ErrorBox, Panel, Time, timeText } from './parts';
import { sectionPath } from './roles';
import {
  REASON_MAX, detailText, memberOf, timeoutProblems, userIdProblem, whatText, type MemberSafer, type Msg,
} from './saferDesk';

function useBo() {
  const token = useAppSelector((s) => selectBackoffice(s).auth?.token ?? null);
  const json = useCallback(<T,>(method: 'GET' | 'POST', path: string, body?: unknown) => boFetch<T>({ method, path, body, token }), [token]);
  const blob = useCallback((path: string) => boFetchBlob({ path, token }), [token]);
  return { json, blob };
}

export function SaferDesk({ userId }: { userId: string | null }) {
  const t = useT();
  return (
    <Panel title={t('bo.safer.title')} testId="bo-safer">
      <MemberView userId={userId} />
    </Panel>
  );
}

const FieldError = ({ error }: { error?: Msg | null }) => {
  const t = useT();
  return error ? <em className="bo-field__error">{t(error.key, ...(error.args ?? []))}</em> : null;
};

function Lookup({ userId }: { userId: string | null }) {
  const t = useT();
  const [id, setId] = useState(userId ?? '');
  const [touched, setTouched] = useState(false);
  const problem = userIdProblem(id);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!problem) navigate(sectionPath('safer', id.trim()));
  };
  return (
    <form className="bo-search" onSubmit={submit} noValidate data-testid="bo-safer-lookup">
      <label className="bo-field bo-field--grow">{t('bo.safer.user_id')}
        <input value={id} inputMode="numeric" data-testid="bo-safer-user" onChange={(e) => setId(e.target.value.trim())} />
        {touched && <FieldError error={problem} />}
      </label>
      <button type="submit" className="bo-btn bo-btn--primary" data-testid="bo-safer-find">{t('bo.safer.find')}</button>
    </form>
  );
}

function MemberView({ userId }: { userId: string | null }) {
  const t = useT();
  const bo = useBo();
  const [member, setMember] = useState<MemberSafer | null>(null);
  const [error, setError] = useState<BoError | null>(null);
  const [done, setDone] = useState('');
  useEffect(() => {
    if (!userId) return;
    let live = true;
    bo.json<unknown>('GET', `/members/${encodeURIComponent(userId)}/safer`).then(
      (data) => live && (setMember(memberOf(data)), setError(null)),
      (e: unknown) => live && setError(toBoError(e)),
    );
    return () => {
      live = false;
    };
  }, [bo, userId]);
  const statement = async () => {
    if (!userId) return;
    try {
      saveBlob(await bo.blob(`/members/${encodeURIComponent(userId)}/statement?months=12`), `statement-${userId}.csv`);
    } catch (e) {
      setError(toBoError(e));
    }
  };
  return (
    <>
      <Lookup userId={userId} />
      <ErrorBox error={error} />
      {done && <p className="bo-alert bo-alert--ok" role="status" data-testid="bo-safer-done">{done}</p>}
      {userId && member && (
        <div className="bo-stack" data-testid="bo-safer-member" data-user={member.user_id}>
          <MemberFacts member={member} />
          <div className="bo-chips">
            <button type="button" className="bo-chip" data-testid="bo-safer-statement" onClick={() => void statement()}>{t('bo.safer.statement')}</button>
          </div>
          <h3 className="bo-form__title">{t('bo.safer.limits')}</h3>
          <LimitsTable limits={member.limits} currency={member.currency} />
          <StartTimeout userId={userId} onDone={(m, text) => { setMember(m); setDone(text); }} />
          <h3 className="bo-form__title">{t('bo.safer.history')}</h3>
          <History member={member} />
        </div>
      )}
    </>
  );
}

function MemberFacts({ member }: { member: MemberSafer }) {
  const t = useT();
  // drawn from the answer: what runs at the moment of the answer
  const [now] = useState(() => Date.now());
  const restriction = restrictionOf(member, now);
  return (
    <dl className="bo-facts" data-testid="bo-safer-facts">
      <dt>{t('bo.safer.user_id')}</dt><dd>{member.user_id}</dd>
      <dt>{t('bo.safer.state')}</dt>
      <dd data-testid="bo-safer-state" data-kind={restriction?.kind ?? 'none'}>
        {restriction ? <>{t(`bo.safer.state.${restriction.kind}`)} · <Time value={restriction.until} /></> : t('bo.safer.state.none')}
      </dd>
      <dt>{t('bo.safer.timeout_until')}</dt><dd>{member.timeout_until ? <Time value={member.timeout_until} /> : '—'}</dd>
      <dt>{t('bo.safer.excluded_until')}</dt><dd>{member.self_excluded_until ? <Time value={member.self_excluded_until} /> : '—'}</dd>
      <dt>{t('rg.reality.section')}</dt><dd>{t(`rg.reality.every.${member.reality_check_minutes}`)}</dd>
    </dl>
  );
}

/** Staff start a time-out (with a reason, kept in the history); nothing here lifts one. */
function StartTimeout({ userId, onDone }: { userId: string; onDone: (m: MemberSafer, text: string) => void }) {
  const t = useT();
  const bo = useBo();
  const [hours, setHours] = useState<number>(TIMEOUT_HOURS[0]);
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [asked, setAsked] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<BoError | null>(null);
  const problems = timeoutProblems(hours, reason);
  const ask = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!problems.hours && !problems.reason) setAsked(true);
  };
  const start = async () => {
    setAsked(false);
    setPending(true);
    try {
      const data = await bo.json<unknown>('POST', `/members/${encodeURIComponent(userId)}/timeout`, { hours, reason: reason.trim() });
      setReason('');
      setTouched(false);
      setError(null);
      onDone(memberOf(data), t('bo.safer.timeout_done', userId, t(`rg.timeout.length.${hours}`)));
    } catch (e) {
      setError(toBoError(e));
    } finally {
      setPending(false);
    }
  };
  return (
    <form className="bo-form bo-safer__timeout" onSubmit={ask} noValidate data-testid="bo-safer-timeout">
      <h3 className="bo-form__title">{t('bo.safer.timeout')}</h3>
      <p className="bo-muted">{t('bo.safer.timeout_note')}</p>
      <div className="bo-form__row">
        <label className="bo-field">{t('rg.timeout.length')}
          <select value={hours} data-testid="bo-safer-hours" onChange={(e) => setHours(Number(e.target.value))}>
            {TIMEOUT_HOURS.map((h) => <option key={h} value={h}>{t(`rg.timeout.length.${h}`)}</option>)}
          </select>
        </label>
        <label className="bo-field">{t('bo.finance.reason')}
          <input value={reason} maxLength={REASON_MAX} data-testid="bo-safer-reason" onChange={(e) => setReason(e.target.value)} />
          {touched && <FieldError error={problems.reason} />}
        </label>
      </div>
      <ErrorBox error={error} />
      <button type="submit" className="bo-btn bo-btn--danger" disabled={pending} data-testid="bo-safer-timeout-start">{t('bo.safer.timeout_start')}</button>
      {asked && (
        <div className="bo-dialog" role="dialog" aria-modal="true" aria-label={t('bo.safer.timeout')} data-testid="bo-safer-confirm"
          onKeyDown={(e) => e.key === 'Escape' && setAsked(false)}>
          <div className="bo-dialog__box">
            <h3>{t('bo.safer.timeout')}</h3>
            <p data-testid="bo-safer-confirm-text">{t('bo.safer.timeout_confirm', t(`rg.timeout.length.${hours}`), userId)}</p>
            <p className="bo-muted">{t('bo.finance.reason')}: {reason.trim()}</p>
            <div className="bo-dialog__actions">
              <button type="button" className="bo-btn bo-btn--ghost-dark" autoFocus data-testid="bo-safer-confirm-cancel" onClick={() => setAsked(false)}>
                {t('common.cancel')}</button>
              <button type="button" className="bo-btn bo-btn--danger" data-testid="bo-safer-confirm-ok" onClick={() => void start()}>
                {t('bo.safer.timeout_start')}</button>
            </div>
          </div>
        </div>
      )}
    </form>
  );
}

function History({ member }: { member: MemberSafer }) {
  const t = useT();
  if (member.history.length === 0) return <p className="bo-empty">{t('bo.safer.history_empty')}</p>;
  return (
    <div className="bo-scroll">
      <table className="bo-table" data-testid="bo-safer-history">
        <thead><tr><th>{t('bo.safer.at')}</th><th>{t('bo.safer.what')}</th><th>{t('bo.safer.by')}</th><th>{t('bo.safer.detail')}</th></tr></thead>
        <tbody>
          {member.history.map((h, i) => (
            <tr key={`${h.at}-${i}`} data-testid="bo-safer-history-row">
              <td><Time value={h.at} /></td><td>{whatText(t, h.what)}</td><td>{h.by}</td><td>{detailText(h.detail, timeText)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

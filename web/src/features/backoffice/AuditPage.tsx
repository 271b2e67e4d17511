import { useEffect, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { TYPE_KEYS } from '../history/model';
import { useT } from '../i18n/useT';
import { backofficeActions as bo, selectBackoffice } from './backofficeSlice';
import { ErrorBox, JsonBlock, Loading, Panel, StatusBadge, Time, money, odds } from './parts';
import { sectionPath } from './roles';
import type { Trail, TrailEvent, WalletMovement } from './types';

/** Search a bet, its audit trail (events with the replayed state), the member's wallet, and the replay check. */
export function AuditPage({ betId }: { betId: string | null }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const { search, trail } = useAppSelector(selectBackoffice);
  const [query, setQuery] = useState(betId ?? search.betId);
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (betId) dispatch(bo.trailRequested(betId));
  }, [dispatch, betId]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (/^\d+$/.test(query.trim())) dispatch(bo.searchRequested(query.trim()));
  };
  return (
    <div className="bo-stack" data-testid="bo-audit">
      <Replay />
      <Panel title={t('bo.audit.title')}>
        <form className="bo-search" onSubmit={submit} noValidate>
          <label className="bo-field bo-field--grow">
            <span>{t('bo.audit.search')}</span>
            <input inputMode="numeric" value={query} data-testid="bo-search-input" onChange={(e) => setQuery(e.target.value.replace(/\D/g, ''))} />
            {touched && !query.trim() && <em className="bo-field__error">{t('validation.required')}</em>}
          </label>
          <button type="submit" className="bo-btn bo-btn--primary" data-testid="bo-search-submit">{t('bo.audit.find')}</button>
        </form>
        <ErrorBox error={search.error} />
        {search.status === 'loading' && <Loading />}
        {search.status === 'ready' && (search.list.length === 0 ? <p className="bo-empty" data-testid="bo-search-empty">{t('bo.no_data')}</p> : (
          <ul className="bo-results">
            {search.list.map((r) => (
              <li key={String(r.id)}>
                <Link href={sectionPath('audit', r.id)} className="bo-result" data-testid="bo-search-result" data-bet={String(r.id)}>
                  <strong>#{r.BetId ?? r.id}</strong>
                  <span>{t(TYPE_KEYS[r.type] ?? 'betslip.type.single')}</span>
                  <span>{money(r.amount)} {r.currency ?? ''} @{odds(r.k)}</span>
                  <Time value={r.date_time} />
                  <StatusBadge status={r.outcome} />
                </Link>
              </li>
            ))}
          </ul>
        ))}
      </Panel>
      {betId && (
        <>
          <ErrorBox error={trail.error} testId="bo-trail-error" />
          {trail.status === 'loading' && <Loading />}
          {trail.data && trail.betId === betId && <TrailView trail={trail.data} />}
        </>
      )}
    </div>
  );
}

function Replay() {
  const t = useT();
  const dispatch = useAppDispatch();
  const replay = useAppSelector((s) => selectBackoffice(s).replay);
  return (
    <Panel title={t('bo.audit.replay_title')} testId="bo-replay"
      actions={
        <button type="button" className="bo-btn bo-btn--ghost-dark" disabled={replay.status === 'loading'} data-testid="bo-replay-button"
          onClick={() => dispatch(bo.replayRequested())}>{replay.status === 'loading' ? t('common.please_wait') : t('bo.audit.replay')}</button>
      }>
      <p className="bo-muted">{t('bo.audit.replay_hint')}</p>
      <ErrorBox error={replay.error} />
      {replay.result && (
        <div className="bo-replay__result" data-testid="bo-replay-result">
          <span data-testid="bo-replay-checked">{t('bo.audit.checked', replay.result.checked)}</span>
          {replay.result.differences.length === 0 ? (
            <span className="bo-badge bo-badge--ok">{t('bo.audit.no_differences')}</span>
          ) : (
            <>
              <span className="bo-badge bo-badge--bad">{t('bo.audit.differences', replay.result.differences.length)}</span>
              <div className="bo-scroll">
                <table className="bo-table" data-testid="bo-replay-differences">
                  <thead><tr><th>{t('bo.col.bet')}</th><th>{t('bo.col.field')}</th><th>{t('bo.col.store')}</th><th>{t('bo.col.read_model')}</th></tr></thead>
                  <tbody>
                    {replay.result.differences.map((d, i) => (
                      <tr key={`${d.bet_id}-${d.field}-${i}`}>
                        <td><Link href={sectionPath('audit', d.bet_id)}>#{d.bet_id}</Link></td><td>{d.field}</td>
                        <td><code>{JSON.stringify(d.store)}</code></td><td><code>{JSON.stringify(d.read_model)}</code></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </div>
      )}
    </Panel>
  );
}

function TrailView({ trail }: { trail: Trail }) {
  const t = useT();
  return (
    <>
      <Panel title={t('bo.audit.trail', String(trail.bet_id))} testId="bo-trail">
        {trail.events.length === 0 ? <p className="bo-empty">{t('bo.no_data')}</p> : (
          <ol className="bo-timeline">
            {trail.events.map((e) => <TimelineItem key={e.sequence} event={e} />)}
          </ol>
        )}
      </Panel>
      <Panel title={t('bo.audit.wallet')} testId="bo-wallet">
        {trail.wallet.length === 0 ? <p className="bo-empty">{t('bo.no_data')}</p> : <WalletTable rows={trail.wallet} />}
      </Panel>
    </>
  );
}

const META_KEYS = ['staff_id', 'staff_role', 'reason'] as const;

function TimelineItem({ event: e }: { event: TrailEvent }) {
  const t = useT();
  const meta = e.metadata ?? {};
  return (
    <li className="bo-timeline__item" data-testid="bo-trail-event" data-type={e.event_type}>
      <div className="bo-timeline__head">
        <span className="bo-timeline__seq">#{e.sequence}</span>
        <strong>{e.event_type}</strong>
        <Time value={e.recorded_at} />
      </div>
      {META_KEYS.some((k) => meta[k] !== undefined && meta[k] !== null) && (
        <div className="bo-meta" data-testid="bo-trail-meta">
          {META_KEYS.filter((k) => meta[k] !== undefined && meta[k] !== null).map((k) => (
            <span key={k} className="bo-meta__item"><em>{t(`bo.meta.${k}`)}</em> {String(meta[k])}</span>
          ))}
        </div>
      )}
      <JsonBlock label={t('bo.audit.payload')} value={e.payload} />
      {Object.keys(meta).length > 0 && <JsonBlock label={t('bo.audit.metadata')} value={meta} />}
      <JsonBlock label={t('bo.audit.state')} value={e.state} testId="bo-trail-state" />
    </li>
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Amount of a wallet movement: the payload's amount, also inside an event-named wrapper ({"StakeTaken": {amount}}). */
export function movementAmount(m: Pick<WalletMovement, 'payload'>): string {
  let p: unknown = m.payload;
  if (isRecord(p) && !('amount' in p)) {
    const inner = Object.values(p);
    if (inner.length === 1 && isRecord(inner[0])) p = inner[0];
  }
  const v = isRecord(p) ? p.amount : undefined;
  return v === null || v === undefined || v === '' ? '—' : money(v as string);
}

function WalletTable({ rows }: { rows: WalletMovement[] }) {
  const t = useT();
  return (
    <div className="bo-scroll">
      <table className="bo-table" data-testid="bo-wallet-table">
        <thead>
          <tr><th>#</th><th>{t('bo.col.time')}</th><th>{t('bo.col.event')}</th><th>{t('bo.col.reference')}</th>
            <th className="num">{t('bo.col.amount')}</th><th>{t('bo.col.balances')}</th></tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.sequence} data-testid="bo-wallet-row">
              <td>{m.sequence}</td><td><Time value={m.recorded_at} /></td><td>{m.event_type}</td>
              <td><code>{m.reference ?? ''}</code></td><td className="num">{movementAmount(m)}</td>
              <td><code className="bo-balances">{JSON.stringify(m.balances)}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

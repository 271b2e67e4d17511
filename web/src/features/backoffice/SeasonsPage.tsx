/**
 * The seasons desk (role support or admin; docs/seasons.md): needcheck task-reward
 * claims waiting for review (approve pays once, reject needs a reason) with the member's
 * season task history beside the chosen claim, and the physical-prize fulfilment queue
 * (to ship, shipped: prize, shirt size, delivery address). Plain calls to
 * /api/backoffice/season (like the finance desk).
 */
import { useCallback, useEffect, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { boFetch, toBoError, type BoError } from './api';
import { selectBackoffice } from './backofficeSlice';
import { ErrorBox, Panel, Time, money } from './parts';

export interface SeasonClaim {
  reference: string; season_id: number; member_id: string; task_id: number; cash: string; currency: string;
  state: string; reason: string; staff_id: string; created_ms: number; decided_ms: number;
}
interface HistoryEntry { sequence: number; event_type: string; payload: Record<string, Record<string, unknown>> | null }
interface ClaimDetail { claim: SeasonClaim; history: HistoryEntry[]; activedays: number }
export interface Prize {
  season_id: number; member_id: string; rank: number; prize: string; cash: string; currency: string; size: string;
  address: string; state: string; created_ms: number; shipped_ms: number; shipped_by: string;
}
type Tab = 'pending' | 'decided' | 'to_ship' | 'shipped';

/** One line of a SeasonTask event for the history column. */
export function historyLine(entry: HistoryEntry): string {
  const body = entry.payload ? Object.values(entry.payload)[0] ?? {} : {};
  const b = body as Record<string, unknown>;
  if (entry.event_type === 'ProgressCounted') {
    const fact = (b.fact ?? {}) as Record<string, Record<string, unknown>>;
    const [kind, v] = Object.entries(fact)[0] ?? ['', {}];
    const bits = Object.entries(v ?? {}).filter(([k]) => k !== 'first').map(([k, x]) => `${k} ${String(x)}`);
    return `${kind}: ${bits.join(', ')}`;
  }
  const bits = ['task_id', 'cash', 'reason', 'staff_id'].filter((k) => b[k] !== undefined && b[k] !== '').map((k) => `${k} ${String(b[k])}`);
  return bits.join(', ');
}

/** The delivery address as stored with the claim (JSON of useraddress) in one line. */
export function addressLine(text: string): string {
  try {
    const a = JSON.parse(text) as Record<string, string>;
    return ['consignee', 'phone', 'province', 'city', 'district', 'address'].map((k) => a[k]).filter(Boolean).join(', ');
  } catch {
    return text;
  }
}

function useBo() {
  const token = useAppSelector((s) => selectBackoffice(s).auth?.token ?? null);
  return useCallback(<T,>(method: 'GET' | 'POST', path: string, body?: unknown) => boFetch<T>({ method, path, body, token }), [token]);
}

export function SeasonsPage() {
  const t = useT();
  const bo = useBo();
  const [tab, setTab] = useState<Tab>('pending');
  const [claims, setClaims] = useState<SeasonClaim[]>([]);
  const [prizes, setPrizes] = useState<Prize[]>([]);
  const [detail, setDetail] = useState<ClaimDetail | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<BoError | null>(null);
  const [done, setDone] = useState('');
  const load = useCallback(async () => {
    try {
      if (tab === 'pending' || tab === 'decided') {
        const rows = await bo<SeasonClaim[]>('GET', `/season/claims?state=${tab === 'pending' ? 'pending' : 'all'}`);
        setClaims(tab === 'pending' ? rows : rows.filter((r) => r.state !== 'pending' && r.state !== 'paid'));
      } else {
        setPrizes(await bo<Prize[]>('GET', `/season/fulfilment?state=${tab}`));
      }
      setError(null);
    } catch (e) {
      setError(toBoError(e));
    }
  }, [bo, tab]);
  useEffect(() => {
    void load();
    const id = setInterval(() => void load(), 5000);
    return () => clearInterval(id);
  }, [load]);
  const open = async (claim: SeasonClaim) => {
    try {
      setReason('');
      setDetail(await bo<ClaimDetail>('GET', `/season/claim?reference=${encodeURIComponent(claim.reference)}`));
    } catch (e) {
      setError(toBoError(e));
    }
  };
  const review = async (approve: boolean) => {
    if (!detail) return;
    try {
      const row = await bo<SeasonClaim>('POST', '/season/claims/review', { reference: detail.claim.reference, approve, reason: reason.trim() });
      setDone(t(approve ? 'bo.seasons.approved' : 'bo.seasons.rejected', row.member_id, row.task_id));
      setDetail(null);
      await load();
    } catch (e) {
      setError(toBoError(e));
    }
  };
  const ship = async (prize: Prize) => {
    try {
      await bo('POST', '/season/fulfilment/ship', { seasonid: prize.season_id, member_id: prize.member_id });
      setDone(t('bo.seasons.shipped_done', prize.member_id));
      await load();
    } catch (e) {
      setError(toBoError(e));
    }
  };
  const tabs: Tab[] = ['pending', 'decided', 'to_ship', 'shipped'];
  return (
    <Panel title={t('bo.nav.seasons')} testId="bo-seasons"
      actions={
        <div className="bo-chips" role="radiogroup">
          {tabs.map((x) => (
            <button key={x} type="button" role="radio" aria-checked={tab === x} data-testid={`bo-seasons-tab-${x}`}
              className={tab === x ? 'bo-chip is-active' : 'bo-chip'} onClick={() => { setTab(x); setDetail(null); setDone(''); }}>
              {t(`bo.seasons.tab_${x}`)}
            </button>
          ))}
        </div>
      }>
      <ErrorBox error={error} />
      {done && <p className="bo-alert bo-alert--ok" role="status" data-testid="bo-seasons-done">{done}</p>}
      {(tab === 'pending' || tab === 'decided') && (
        <div className="bo-seasons__split">
          <table className="bo-table" data-testid="bo-season-claims">
            <thead>
              <tr><th>{t('bo.seasons.member')}</th><th>{t('bo.seasons.season')}</th><th>{t('bo.seasons.task')}</th><th>{t('bo.seasons.cash')}</th><th>{t('bo.seasons.state')}</th><th>{t('bo.seasons.time')}</th><th /></tr>
            </thead>
            <tbody>
              {claims.length === 0 && <tr><td colSpan={7} className="bo-muted">{t('bo.seasons.empty')}</td></tr>}
              {claims.map((c) => (
                <tr key={c.reference} className={detail?.claim.reference === c.reference ? 'is-active' : ''} data-testid="bo-season-claim" data-member={c.member_id} data-task={c.task_id}>
                  <td>{c.member_id}</td><td>{c.season_id}</td><td>{c.task_id}</td><td>{money(c.cash)} {c.currency}</td>
                  <td>{t(`bo.seasons.state_${c.state}`)}{c.reason ? ` — ${c.reason}` : ''}</td><td><Time value={c.created_ms} /></td>
                  <td><button type="button" className="bo-chip" data-testid="bo-season-claim-open" onClick={() => void open(c)}>{t('bo.seasons.open')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          {detail && (
            <aside className="bo-seasons__detail" data-testid="bo-season-claim-detail">
              <h2>{t('bo.seasons.claim_of', detail.claim.member_id, detail.claim.task_id)}</h2>
              <p>{t('bo.seasons.active_days', detail.activedays)} · {money(detail.claim.cash)} {detail.claim.currency} · {detail.claim.reference}</p>
              <h3>{t('bo.seasons.history')}</h3>
              <ol className="bo-seasons__history" data-testid="bo-season-history">
                {detail.history.map((h) => (
                  <li key={h.sequence}><strong>{h.event_type}</strong> <span className="bo-muted">{historyLine(h)}</span></li>
                ))}
              </ol>
              {detail.claim.state === 'pending' ? (
                <div className="bo-seasons__actions">
                  <button type="button" className="bo-btn bo-btn--primary" data-testid="bo-season-approve" onClick={() => void review(true)}>{t('bo.seasons.approve')}</button>
                  <input className="bo-seasons__reason" value={reason} maxLength={500} placeholder={t('bo.seasons.reason')} data-testid="bo-season-reason"
                    onChange={(e) => setReason(e.target.value)} />
                  <button type="button" className="bo-btn" disabled={!reason.trim()} data-testid="bo-season-reject" onClick={() => void review(false)}>{t('bo.seasons.reject')}</button>
                </div>
              ) : (
                <p className="bo-muted">{t(`bo.seasons.state_${detail.claim.state}`)} {detail.claim.staff_id} {detail.claim.reason}</p>
              )}
            </aside>
          )}
        </div>
      )}
      {(tab === 'to_ship' || tab === 'shipped') && (
        <table className="bo-table" data-testid="bo-season-prizes">
          <thead>
            <tr><th>{t('bo.seasons.member')}</th><th>{t('bo.seasons.season')}</th><th>{t('bo.seasons.rank')}</th><th>{t('bo.seasons.prize')}</th><th>{t('bo.seasons.size')}</th><th>{t('bo.seasons.address')}</th><th>{t('bo.seasons.time')}</th><th /></tr>
          </thead>
          <tbody>
            {prizes.length === 0 && <tr><td colSpan={8} className="bo-muted">{t('bo.seasons.empty')}</td></tr>}
            {prizes.map((p) => (
              <tr key={`${p.season_id}:${p.member_id}`} data-testid="bo-season-prize">
                <td>{p.member_id}</td><td>{p.season_id}</td><td>{p.rank}</td><td>{p.prize}</td><td>{p.size || '—'}</td><td>{addressLine(p.address)}</td>
                <td><Time value={p.state === 'shipped' ? p.shipped_ms : p.created_ms} />{p.shipped_by ? ` · ${p.shipped_by}` : ''}</td>
                <td>{p.state === 'to_ship' && <button type="button" className="bo-btn bo-btn--primary" data-testid="bo-season-ship" onClick={() => void ship(p)}>{t('bo.seasons.ship')}</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

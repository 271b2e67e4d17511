/**
 * The seasons desk (role support or admin; docs/seasons.md): needcheck task-reward
 * claims waiting for review (approve pays once, reject needs a reason) with the member's
 * season task history beside the chosen claim, and the physical-prize fulfilment queue
 * (to ship, shipped: prize, shirt size, delivery address), and a season's task
 * definitions (admin edits them; taskdesc and bonusname in zhh, eng and tha, checked by
 * ./seasonsDesk.ts before they are sent). Plain calls to /api/backoffice/season (like the
 * finance desk).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { apiPost } from '../../api';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { boFetch, toBoError, type BoError } from './api';
import { selectBackoffice } from './backofficeSlice';
import { ErrorBox, Panel, Time, money } from './parts';
import { LANGS, hasErrors, type Errors, type Msg, type Texts } from './promoDesk';
import {
  SEASON_TASK_TYPES, seasonTaskBody, seasonTaskForm, validateSeasonTask, type SeasonTaskDef, type SeasonTaskForm,
} from './seasonsDesk';

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
type Tab = 'pending' | 'decided' | 'to_ship' | 'shipped' | 'tasks';

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
    if (tab === 'tasks') return;
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
  const tabs: Tab[] = ['pending', 'decided', 'to_ship', 'shipped', 'tasks'];
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
          <div className="bo-scroll">
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
          </div>
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
        <div className="bo-scroll">
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
        </div>
      )}
      {tab === 'tasks' && <TaskDefs />}
    </Panel>
  );
}

function FieldError({ msg }: { msg?: Msg }) {
  const t = useT();
  return msg ? <em className="bo-field__error" data-testid="bo-season-field-error">{t(msg.key, ...(msg.args ?? []))}</em> : null;
}

/** A text per language: three inputs labelled zhh / eng / tha. */
function TextsInput({ label, value, onChange, errors, field, testId }: {
  label: string; value: Texts; onChange: (v: Texts) => void; errors: Errors; field: string; testId: string;
}) {
  return (
    <fieldset className="bo-seasons__texts" data-testid={testId}>
      <legend>{label}</legend>
      {LANGS.map((l) => (
        <label key={l} className="bo-field">
          <span>{l}</span>
          <input value={value[l]} data-testid={`${testId}-${l}`} onChange={(e) => onChange({ ...value, [l]: e.target.value })} />
          <FieldError msg={errors[`${field}.${l}`]} />
        </label>
      ))}
    </fieldset>
  );
}

const textOf = (v: Texts | string, lang: string) =>
  typeof v === 'string' ? v : (v[lang as keyof Texts] || v.eng || v.zhh || v.tha || '');

/** A season's task definitions: the list, and the form (admin saves; support reads). */
function TaskDefs() {
  const t = useT();
  const bo = useBo();
  const lang = useAppSelector(selectLanguage) ?? 'eng';
  const [season, setSeason] = useState('1');
  const [defs, setDefs] = useState<SeasonTaskDef[]>([]);
  const [form, setForm] = useState<SeasonTaskForm | null>(null);
  const [isNew, setIsNew] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<BoError | null>(null);
  const [done, setDone] = useState('');
  useEffect(() => {
    // the running season, else the next one
    void apiPost<{ seasonid?: number; next?: { seasonid?: number } | null }>('vipsystem/seasoninfo').then((a) => {
      const id = a.seasonid || a.next?.seasonid;
      if (id) setSeason(String(id));
    }).catch(() => undefined);
  }, []);
  const load = useCallback(async () => {
    if (!/^\d+$/.test(season)) return;
    try {
      setDefs(await bo<SeasonTaskDef[]>('GET', `/season/tasks?seasonid=${season}`));
      setError(null);
    } catch (e) {
      setError(toBoError(e));
    }
  }, [bo, season]);
  useEffect(() => void load(), [load]);
  const edit = (def: SeasonTaskDef | null) => {
    setForm(seasonTaskForm(def, defs));
    setIsNew(def === null);
    setErrors({});
    setDone('');
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!form) return;
    const found = validateSeasonTask(form, defs, isNew);
    setErrors(found);
    if (hasErrors(found)) return;
    try {
      setDefs(await bo<SeasonTaskDef[]>('POST', '/season/tasks', { seasonid: Number(season), task: seasonTaskBody(form) }));
      setDone(t('bo.seasons.task_saved', form.id));
      setForm(null);
      setError(null);
    } catch (err) {
      setError(toBoError(err));
    }
  };
  const set = (patch: Partial<SeasonTaskForm>) => setForm((f) => (f ? { ...f, ...patch } : f));
  return (
    <div data-testid="bo-season-tasks">
      <ErrorBox error={error} />
      {done && <p className="bo-alert bo-alert--ok" role="status" data-testid="bo-season-task-saved">{done}</p>}
      <div className="bo-seasons__actions">
        <label className="bo-field"><span>{t('bo.seasons.season')}</span>
          <input value={season} inputMode="numeric" data-testid="bo-season-task-season" onChange={(e) => { setSeason(e.target.value.trim()); setForm(null); }} />
        </label>
        <button type="button" className="bo-btn" data-testid="bo-season-task-new" onClick={() => edit(null)}>{t('bo.seasons.new_task')}</button>
      </div>
      <div className="bo-scroll">
        <table className="bo-table" data-testid="bo-season-task-defs">
          <thead>
            <tr><th>{t('bo.seasons.task')}</th><th>{t('bo.seasons.task_type')}</th><th>{t('bo.seasons.task_value')}</th><th>{t('bo.seasons.task_desc')}</th><th>{t('bo.seasons.bonus_name')}</th><th>{t('bo.seasons.cash')}</th><th /></tr>
          </thead>
          <tbody>
            {defs.length === 0 && <tr><td colSpan={7} className="bo-muted">{t('bo.seasons.empty')}</td></tr>}
            {defs.map((d) => (
              <tr key={d.id} data-testid="bo-season-task-def" data-task={d.id}>
                <td>{d.id}</td><td>{t(`season.type_${d.tasktype}`)}</td><td>{d.taskvalue}</td><td>{textOf(d.taskdesc, lang)}</td><td>{textOf(d.bonusname, lang)}</td>
                <td>{money(d.cash)}{d.needcheck ? ` · ${t('bo.seasons.needcheck')}` : ''}</td>
                <td><button type="button" className="bo-chip" data-testid="bo-season-task-edit" onClick={() => edit(d)}>{t('bo.seasons.edit')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {form && (
        <form className="bo-seasons__taskform" data-testid="bo-season-task-form" onSubmit={(e) => void save(e)} noValidate>
          <label className="bo-field"><span>{t('bo.seasons.task')}</span>
            <input value={form.id} disabled={!isNew} data-testid="bo-season-task-id" onChange={(e) => set({ id: e.target.value })} />
            <FieldError msg={errors.id} />
          </label>
          <label className="bo-field"><span>{t('bo.seasons.task_type')}</span>
            <select value={form.tasktype} data-testid="bo-season-task-type" onChange={(e) => set({ tasktype: e.target.value })}>
              {SEASON_TASK_TYPES.map((x) => <option key={x} value={x}>{t(`season.type_${x}`)}</option>)}
            </select>
            <FieldError msg={errors.tasktype} />
          </label>
          <label className="bo-field"><span>{t('bo.seasons.task_value')}</span>
            <input value={form.taskvalue} inputMode="decimal" data-testid="bo-season-task-value" onChange={(e) => set({ taskvalue: e.target.value })} />
            <FieldError msg={errors.taskvalue} />
          </label>
          <label className="bo-field"><span>{t('bo.seasons.cash')}</span>
            <input value={form.cash} inputMode="decimal" data-testid="bo-season-task-cash" onChange={(e) => set({ cash: e.target.value })} />
            <FieldError msg={errors.cash} />
          </label>
          <label className="bo-field"><span>{t('bo.seasons.needcheck')}</span>
            <input type="checkbox" checked={form.needcheck} data-testid="bo-season-task-needcheck" onChange={(e) => set({ needcheck: e.target.checked })} />
          </label>
          <TextsInput label={t('bo.seasons.task_desc')} value={form.taskdesc} onChange={(v) => set({ taskdesc: v })} errors={errors} field="taskdesc" testId="bo-season-task-desc" />
          <TextsInput label={t('bo.seasons.bonus_name')} value={form.bonusname} onChange={(v) => set({ bonusname: v })} errors={errors} field="bonusname" testId="bo-season-task-bonus" />
          <div className="bo-seasons__actions">
            <button type="submit" className="bo-btn bo-btn--primary" data-testid="bo-season-task-save">{t('bo.seasons.save')}</button>
            <button type="button" className="bo-btn" onClick={() => setForm(null)}>{t('bo.seasons.cancel')}</button>
          </div>
        </form>
      )}
    </div>
  );
}

/**
 * The promotions desk (role marketing or admin; docs/promotions.md "Back office"):
 * campaigns (pages per language, audience, period, reward rule, on/off), daily and novice
 * task definitions with the sign-in table, task claims awaiting review, the prize board of
 * 8 with this week's stock, shop goods, the fulfilment queue and referral settings with the
 * referral records. Plain calls to /api/backoffice/promo/*; its own lazy chunk.
 * Forms are checked by ./promoDesk.ts before they are sent; the server's refusal is shown
 * as it answers.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { boFetch, toBoError, type BoError } from './api';
import { selectBackoffice } from './backofficeSlice';
import { ErrorBox, Loading, Panel, Time, money } from './parts';
import { addressLine } from './SeasonsPage';
import {
  CURRENCIES, LANGS, REPEATS, RULES, boardBody, boardForm, campaignBody, campaignForm, chances, goodsBody, goodsForm, hasErrors, newTask,
  referralBody, referralForm, taskSettingsBody, taskSettingsForm, textIn, textsOf, validateBoard, validateCampaign, validateGoods,
  validateReferral, validateReview, validateTaskSettings,
  type BoardDef, type BoardForm, type CampaignDef, type CampaignForm, type Errors, type GoodsDef, type GoodsForm, type Msg,
  type ReferralForm, type TaskSettingsDef, type TaskSettingsForm, type Texts,
} from './promoDesk';
import './contentDesk.css';
import './promoDesk.css';

const TABS = ['campaigns', 'tasks', 'claims', 'board', 'goods', 'fulfilment', 'referral'] as const;
type Tab = (typeof TABS)[number];

function useBo() {
  const token = useAppSelector((s) => selectBackoffice(s).auth?.token ?? null);
  return useCallback(<T,>(method: 'GET' | 'POST', path: string, body?: unknown) => boFetch<T>({ method, path: `/promo${path}`, body, token }), [token]);
}

/** A list loaded on mount (and on `reload()`), with its error. */
function useList<T>(path: string) {
  const bo = useBo();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<BoError | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await bo<T>('GET', path));
      setError(null);
    } catch (e) {
      setError(toBoError(e));
    }
  }, [bo, path]);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload, setError };
}

export function PromoDesk() {
  const t = useT();
  const [tab, setTab] = useState<Tab>('campaigns');
  return (
    <Panel title={t('bo.promo.title')} testId="bo-promo"
      actions={
        <div className="bo-chips bo-chips--wrap" role="radiogroup">
          {TABS.map((x) => (
            <button key={x} type="button" role="radio" aria-checked={tab === x} data-testid={`bo-promo-tab-${x}`}
              className={tab === x ? 'bo-chip is-active' : 'bo-chip'} onClick={() => setTab(x)}>{t(`bo.promo.tab.${x}`)}</button>
          ))}
        </div>
      }>
      {tab === 'campaigns' && <Campaigns />}
      {tab === 'tasks' && <Tasks />}
      {tab === 'claims' && <Claims />}
      {tab === 'board' && <BoardDesk />}
      {tab === 'goods' && <GoodsDesk />}
      {tab === 'fulfilment' && <Fulfilment />}
      {tab === 'referral' && <Referral />}
    </Panel>
  );
}

// ------------------------------------------------------------------ small parts

function FieldError({ msg }: { msg?: Msg }) {
  const t = useT();
  return msg ? <em className="bo-field__error" data-testid="bo-promo-field-error">{t(msg.key, ...(msg.args ?? []))}</em> : null;
}

function Field({ label, error, children }: { label: string; error?: Msg; children: ReactNode }) {
  return <label className="bo-field"><span>{label}</span>{children}<FieldError msg={error} /></label>;
}

/** A text per language: three inputs labelled zhh / eng / tha. */
function TextsInput({ label, value, onChange, errors, field, testId, area }: {
  label: string; value: Texts; onChange: (v: Texts) => void; errors: Errors; field: string; testId: string; area?: boolean;
}) {
  return (
    <fieldset className="bo-pdesk__texts" data-testid={testId}>
      <legend>{label}</legend>
      {LANGS.map((l) => (
        <label key={l} className="bo-field bo-pdesk__lang">
          <span>{l}</span>
          {area ? (
            <textarea rows={2} value={value[l]} data-testid={`${testId}-${l}`} onChange={(e) => onChange({ ...value, [l]: e.target.value })} />
          ) : (
            <input value={value[l]} data-testid={`${testId}-${l}`} onChange={(e) => onChange({ ...value, [l]: e.target.value })} />
          )}
          <FieldError msg={errors[`${field}.${l}`]} />
        </label>
      ))}
    </fieldset>
  );
}

function Done({ text, testId }: { text: string; testId: string }) {
  return text ? <p className="bo-alert bo-alert--ok" role="status" data-testid={testId}>{text}</p> : null;
}

const Empty = ({ cols }: { cols: number }) => {
  const t = useT();
  return <tr><td colSpan={cols} className="bo-empty" data-testid="bo-promo-empty">{t('bo.promo.empty')}</td></tr>;
};

function StateChips<S extends string>({ states, value, onChange, prefix }: { states: readonly S[]; value: S; onChange: (s: S) => void; prefix: string }) {
  const t = useT();
  return (
    <div className="bo-chips bo-chips--wrap" role="radiogroup">
      {states.map((s) => (
        <button key={s} type="button" role="radio" aria-checked={value === s} data-testid={`${prefix}-${s}`}
          className={value === s ? 'bo-chip is-active' : 'bo-chip'} onClick={() => onChange(s)}>{t(`bo.promo.state.${s}`)}</button>
      ))}
    </div>
  );
}

/** Sends a checked form: the server's refusal is kept for the ErrorBox. */
function useSave() {
  const bo = useBo();
  const [error, setError] = useState<BoError | null>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const save = useCallback(async (path: string, body: unknown, doneText: string) => {
    setError(null);
    setDone('');
    setBusy(true);
    try {
      const answer = await bo<unknown>('POST', path, body);
      setDone(doneText);
      return answer ?? true;
    } catch (e) {
      setError(toBoError(e));
      return null;
    } finally {
      setBusy(false);
    }
  }, [bo]);
  return { save, error, done, busy, setDone, setError };
}

// ------------------------------------------------------------------ campaigns

function Campaigns() {
  const t = useT();
  const lang = useAppSelector(selectLanguage) ?? 'eng';
  const list = useList<CampaignDef[]>('/campaigns');
  const rows = list.data ?? [];
  const [editing, setEditing] = useState<CampaignDef | null>(null);
  const [form, setForm] = useState<CampaignForm>(() => campaignForm(null));
  const [errors, setErrors] = useState<Errors>({});
  const [pageLang, setPageLang] = useState<(typeof LANGS)[number]>('eng');
  const saver = useSave();
  const edit = (c: CampaignDef | null) => {
    setEditing(c);
    setForm(campaignForm(c, rows));
    setErrors({});
    saver.setError(null);
  };
  // a new campaign's aid is the next free one: the form opens once the list is there
  const seeded = useRef(false);
  useEffect(() => {
    if (list.data && !seeded.current) {
      seeded.current = true;
      setForm(campaignForm(null, list.data));
    }
  }, [list.data]);
  const set = <K extends keyof CampaignForm>(k: K, v: CampaignForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setPage = (k: 'title' | 'body' | 'banner', v: string) => setForm((f) => ({ ...f, pages: { ...f.pages, [pageLang]: { ...f.pages[pageLang], [k]: v } } }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateCampaign(form, rows, !editing);
    setErrors(found);
    if (hasErrors(found)) {
      const bad = LANGS.find((l) => Object.keys(found).some((k) => k.startsWith(`pages.${l}.`)));
      if (bad) setPageLang(bad);
      return;
    }
    if (await saver.save('/campaigns', campaignBody(form), t('bo.promo.saved'))) {
      setEditing(null);
      setForm(campaignForm(null, [...rows, campaignBody(form)]));
      await list.reload();
    }
  };
  const toggle = async (c: CampaignDef) => {
    if (await saver.save('/campaigns', { ...c, enabled: !c.enabled }, t(c.enabled ? 'bo.promo.disabled' : 'bo.promo.enabled'))) await list.reload();
  };
  const page = form.pages[pageLang];
  const ruleLabel = (r: string) => t(`bo.promo.rule.${r}`);
  if (!list.data) return list.error ? <ErrorBox error={list.error} /> : <Loading />;
  return (
    <div className="bo-cdesk">
      <div className="bo-cdesk__list">
        <ErrorBox error={list.error} />
        <Done text={saver.done} testId="bo-promo-done" />
        <table className="bo-table" data-testid="bo-promo-campaigns">
          <thead><tr><th>aid</th><th>{t('bo.promo.f.title')}</th><th>{t('bo.promo.f.period')}</th><th>{t('bo.promo.f.rule')}</th><th>{t('bo.promo.f.enabled')}</th><th /></tr></thead>
          <tbody>
            {list.data && rows.length === 0 && <Empty cols={6} />}
            {rows.map((c) => {
              const title = textIn(textsOf({ zhh: c.pages.zhh?.title, eng: c.pages.eng?.title, tha: c.pages.tha?.title }), lang);
              return (
                <tr key={c.id} data-testid="bo-promo-campaign" data-slug={c.slug}>
                  <td>{c.id}</td>
                  <td><strong>{title}</strong><br /><code>/{c.slug}</code> · {Object.keys(c.pages).join(' ')}</td>
                  <td><Time value={c.start_ms} /><br /><Time value={c.end_ms} /> · {t(`bo.promo.repeat.${c.repeat}`)}</td>
                  <td>{ruleLabel(c.rule.type)}</td>
                  <td>{c.enabled ? '✓' : '—'}</td>
                  <td>
                    <div className="bo-pdesk__actions">
                      <button type="button" className="bo-chip" data-testid="bo-promo-campaign-edit" onClick={() => edit(c)}>{t('bo.content.edit')}</button>
                      <button type="button" className="bo-chip" data-testid="bo-promo-campaign-toggle" onClick={() => void toggle(c)}>
                        {t(c.enabled ? 'bo.promo.disable' : 'bo.promo.enable')}
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <form className="bo-cdesk__form" onSubmit={(e) => void submit(e)} noValidate data-testid="bo-promo-campaign-form">
        <h3 className="bo-cdesk__heading">{editing ? t('bo.content.editing', editing.id) : t('bo.promo.new_campaign')}</h3>
        <div className="bo-form__row">
          <Field label="aid" error={errors.id}>
            <input value={form.id} inputMode="numeric" disabled={Boolean(editing)} data-testid="bo-promo-c-id" onChange={(e) => set('id', e.target.value)} />
          </Field>
          <Field label={t('bo.promo.f.slug')} error={errors.slug}>
            <input value={form.slug} placeholder="summer-reload" data-testid="bo-promo-c-slug" onChange={(e) => set('slug', e.target.value)} />
          </Field>
        </div>
        <fieldset className="bo-pdesk__texts">
          <legend>{t('bo.promo.f.pages')}</legend>
          <div className="bo-chips" role="radiogroup">
            {LANGS.map((l) => (
              <button key={l} type="button" role="radio" aria-checked={pageLang === l} data-testid={`bo-promo-c-lang-${l}`}
                className={`bo-chip${pageLang === l ? ' is-active' : ''}${Object.keys(errors).some((k) => k.startsWith(`pages.${l}.`)) ? ' is-invalid' : ''}`}
                onClick={() => setPageLang(l)}>{l}{form.pages[l].title.trim() ? ' ✓' : ''}</button>
            ))}
          </div>
          <Field label={t('bo.promo.f.title')} error={errors[`pages.${pageLang}.title`]}>
            <input value={page.title} data-testid="bo-promo-c-title" onChange={(e) => setPage('title', e.target.value)} />
          </Field>
          <Field label={t('bo.promo.f.body')} error={errors[`pages.${pageLang}.body`]}>
            <textarea rows={4} value={page.body} data-testid="bo-promo-c-body" onChange={(e) => setPage('body', e.target.value)} />
          </Field>
          <Field label={t('bo.promo.f.banner')} error={errors[`pages.${pageLang}.banner`]}>
            <input value={page.banner} placeholder="https://" data-testid="bo-promo-c-banner" onChange={(e) => setPage('banner', e.target.value)} />
          </Field>
          <p className="bo-muted">{t('bo.promo.pages_note')}</p>
        </fieldset>
        <fieldset className="bo-pdesk__texts">
          <legend>{t('bo.promo.f.audience')}</legend>
          <div className="bo-chips bo-chips--wrap">
            {CURRENCIES.map((c) => (
              <label key={c} className="bo-check">
                <input type="checkbox" checked={form.currencies.includes(c)} data-testid={`bo-promo-c-cur-${c}`}
                  onChange={(e) => set('currencies', e.target.checked ? [...form.currencies, c] : form.currencies.filter((x) => x !== c))} /> {c}
              </label>
            ))}
          </div>
          <p className="bo-muted">{t('bo.promo.currencies_note')}</p>
          <div className="bo-form__row">
            <Field label={t('bo.promo.f.min_vip_level')} error={errors.min_vip_level}>
              <input value={form.min_vip_level} inputMode="numeric" onChange={(e) => set('min_vip_level', e.target.value)} />
            </Field>
            <Field label={t('bo.promo.f.new_member_days')} error={errors.new_member_days}>
              <input value={form.new_member_days} inputMode="numeric" onChange={(e) => set('new_member_days', e.target.value)} />
            </Field>
          </div>
        </fieldset>
        <div className="bo-form__row bo-pdesk__dates">
          <Field label={t('bo.promo.f.start')} error={errors.start}>
            <input type="datetime-local" value={form.start} data-testid="bo-promo-c-start" onChange={(e) => set('start', e.target.value)} />
          </Field>
          <Field label={t('bo.promo.f.end')} error={errors.end}>
            <input type="datetime-local" value={form.end} data-testid="bo-promo-c-end" onChange={(e) => set('end', e.target.value)} />
          </Field>
        </div>
        <div className="bo-form__row">
          <Field label={t('bo.promo.f.repeat')} error={errors.repeat}>
            <select value={form.repeat} data-testid="bo-promo-c-repeat" onChange={(e) => set('repeat', e.target.value)}>
              {REPEATS.map((r) => <option key={r} value={r}>{t(`bo.promo.repeat.${r}`)}</option>)}
            </select>
          </Field>
          <Field label={t('bo.promo.f.rule')}>
            <select value={form.rule} data-testid="bo-promo-c-rule" onChange={(e) => set('rule', e.target.value as CampaignForm['rule'])}>
              {RULES.map((r) => <option key={r} value={r}>{ruleLabel(r)}</option>)}
            </select>
          </Field>
        </div>
        {form.rule === 'turnover' ? (
          <Field label={t('bo.promo.f.tiers')} error={errors['rule.tiers']}>
            <textarea rows={3} value={form.tiers} data-testid="bo-promo-c-tiers" onChange={(e) => set('tiers', e.target.value)} />
          </Field>
        ) : (
          <div className="bo-pdesk__three">
            <Field label={t('bo.promo.f.percent')} error={errors['rule.percent']}>
              <input value={form.percent} inputMode="decimal" data-testid="bo-promo-c-percent" onChange={(e) => set('percent', e.target.value)} />
            </Field>
            <Field label={t(form.rule === 'loss_rebate' ? 'bo.promo.f.min_loss' : 'bo.promo.f.min_deposit')} error={errors['rule.minimum']}>
              <input value={form.minimum} inputMode="decimal" data-testid="bo-promo-c-minimum" onChange={(e) => set('minimum', e.target.value)} />
            </Field>
            <Field label={t('bo.promo.f.max_bonus')} error={errors['rule.max_bonus']}>
              <input value={form.max_bonus} inputMode="decimal" data-testid="bo-promo-c-max" onChange={(e) => set('max_bonus', e.target.value)} />
            </Field>
          </div>
        )}
        <p className="bo-muted">{t(`bo.promo.rule_note.${form.rule}`)}</p>
        <Field label={t('bo.promo.f.turnover_multiple')} error={errors.turnover_multiple}>
          <input value={form.turnover_multiple} inputMode="decimal" data-testid="bo-promo-c-multiple" onChange={(e) => set('turnover_multiple', e.target.value)} />
        </Field>
        <label className="bo-check"><input type="checkbox" checked={form.enabled} data-testid="bo-promo-c-enabled" onChange={(e) => set('enabled', e.target.checked)} /> {t('bo.promo.f.enabled')}</label>
        {hasErrors(errors) && <p className="bo-alert" role="alert" data-testid="bo-promo-invalid">{t('bo.promo.v.fix')}</p>}
        <ErrorBox error={saver.error} testId="bo-promo-error" />
        <div className="bo-chips">
          <button type="submit" className="bo-btn bo-btn--primary" disabled={saver.busy} data-testid="bo-promo-c-save">{t('common.save')}</button>
          {editing && <button type="button" className="bo-btn bo-btn--ghost-dark" onClick={() => edit(null)}>{t('common.cancel')}</button>}
        </div>
      </form>
    </div>
  );
}

// ------------------------------------------------------------------ tasks

function Tasks() {
  const t = useT();
  const list = useList<TaskSettingsDef>('/tasks');
  const [form, setForm] = useState<TaskSettingsForm | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const saver = useSave();
  useEffect(() => {
    if (list.data) setForm(taskSettingsForm(list.data));
  }, [list.data]);
  if (!form) return <ErrorBox error={list.error} />;
  const setTask = (i: number, patch: Partial<TaskSettingsForm['tasks'][number]>) =>
    setForm({ ...form, tasks: form.tasks.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateTaskSettings(form);
    setErrors(found);
    if (hasErrors(found)) return;
    if (await saver.save('/tasks', taskSettingsBody(form), t('bo.promo.saved'))) await list.reload();
  };
  return (
    <form className="bo-pdesk" onSubmit={(e) => void submit(e)} noValidate data-testid="bo-promo-tasks">
      <div className="bo-form__row">
        <Field label={t('bo.promo.f.signin')} error={errors.signin}>
          <input value={form.signin} data-testid="bo-promo-t-signin" onChange={(e) => setForm({ ...form, signin: e.target.value })} />
        </Field>
        <Field label={t('bo.promo.f.turnover_multiple')} error={errors.turnover_multiple}>
          <input value={form.turnover_multiple} inputMode="decimal" onChange={(e) => setForm({ ...form, turnover_multiple: e.target.value })} />
        </Field>
      </div>
      <FieldError msg={errors.tasks} />
      {(['daily', 'novice'] as const).map((group) => (
        <section key={group} className="bo-pdesk__group">
          <h3 className="bo-cdesk__heading">{t(`bo.promo.group.${group}`)}</h3>
          {form.tasks.every((x) => x.group !== group) && <p className="bo-empty">{t('bo.promo.empty')}</p>}
          {form.tasks.map((task, i) => task.group !== group ? null : (
            <div key={i} className="bo-pdesk__card" data-testid="bo-promo-task">
              <div className="bo-pdesk__five">
                <Field label="id" error={errors[`tasks.${i}.id`]}><input value={task.id} inputMode="numeric" onChange={(e) => setTask(i, { id: e.target.value })} /></Field>
                <Field label={t('bo.promo.f.kind')}>
                  <select value={task.kind} onChange={(e) => setTask(i, { kind: e.target.value })}>
                    {['signin', 'deposit', 'turnover'].map((k) => <option key={k} value={k}>{t(`bo.promo.task_kind.${k}`)}</option>)}
                  </select>
                </Field>
                <Field label={t('bo.promo.f.target')} error={errors[`tasks.${i}.target`]}><input value={task.target} inputMode="decimal" onChange={(e) => setTask(i, { target: e.target.value })} /></Field>
                <Field label={t('bo.promo.f.cash')} error={errors[`tasks.${i}.cash`]}><input value={task.cash} inputMode="decimal" onChange={(e) => setTask(i, { cash: e.target.value })} /></Field>
                <label className="bo-check"><input type="checkbox" checked={task.needcheck} onChange={(e) => setTask(i, { needcheck: e.target.checked })} /> {t('bo.promo.f.needcheck')}</label>
              </div>
              <TextsInput label={t('bo.promo.f.task_title')} value={task.title} field={`tasks.${i}.title`} errors={errors} testId={`bo-promo-t-title-${task.id}`}
                onChange={(v) => setTask(i, { title: v })} />
              <button type="button" className="bo-chip" onClick={() => setForm({ ...form, tasks: form.tasks.filter((_, j) => j !== i) })}>{t('bo.content.delete')}</button>
            </div>
          ))}
          <button type="button" className="bo-btn bo-btn--ghost-dark" data-testid={`bo-promo-t-add-${group}`}
            onClick={() => setForm({ ...form, tasks: [...form.tasks, newTask(form.tasks, group)] })}>{t('bo.promo.add_task')}</button>
        </section>
      ))}
      {hasErrors(errors) && <p className="bo-alert" role="alert" data-testid="bo-promo-invalid">{t('bo.promo.v.fix')}</p>}
      <ErrorBox error={saver.error ?? list.error} testId="bo-promo-error" />
      <Done text={saver.done} testId="bo-promo-done" />
      <button type="submit" className="bo-btn bo-btn--primary" disabled={saver.busy} data-testid="bo-promo-t-save">{t('common.save')}</button>
    </form>
  );
}

// ------------------------------------------------------------------ claims

interface TaskClaim { reference: string; member_id: string; task_id: number; period: string; cash: string; currency: string; state: string; reason: string; staff_id: string; created_ms: number; decided_ms: number }
const CLAIM_STATES = ['pending', 'approved', 'rejected', 'paid', 'all'] as const;

function Claims() {
  const t = useT();
  const [state, setState] = useState<(typeof CLAIM_STATES)[number]>('pending');
  const list = useList<TaskClaim[]>(`/task-claims?state=${state}`);
  const defs = useList<TaskSettingsDef>('/tasks');
  const lang = useAppSelector(selectLanguage) ?? 'eng';
  const taskName = (id: number) => {
    const def = defs.data?.tasks.find((x) => x.id === id);
    return def ? textIn(textsOf(def.title), lang) : '';
  };
  const saver = useSave();
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [invalid, setInvalid] = useState<Record<string, Msg>>({});
  const rows = list.data ?? [];
  const review = async (c: TaskClaim, approve: boolean) => {
    const reason = reasons[c.reference] ?? '';
    const msg = validateReview(approve, reason);
    setInvalid((x) => {
      const next = { ...x };
      if (msg) next[c.reference] = msg;
      else delete next[c.reference];
      return next;
    });
    if (msg) return;
    const text = t(approve ? 'bo.seasons.approved' : 'bo.seasons.rejected', c.member_id, c.task_id);
    if (await saver.save('/task-claims/review', { reference: c.reference, approve, reason: reason.trim() }, text)) await list.reload();
  };
  return (
    <div className="bo-stack">
      <StateChips states={CLAIM_STATES} value={state} onChange={setState} prefix="bo-promo-claims" />
      <ErrorBox error={saver.error ?? list.error} testId="bo-promo-error" />
      <Done text={saver.done} testId="bo-promo-done" />
      <div className="bo-scroll">
        <table className="bo-table" data-testid="bo-promo-claims">
          <thead><tr><th>{t('bo.seasons.member')}</th><th>{t('bo.seasons.task')}</th><th>{t('bo.promo.f.period')}</th><th>{t('bo.seasons.cash')}</th><th>{t('bo.seasons.state')}</th><th>{t('bo.seasons.time')}</th><th /></tr></thead>
          <tbody>
            {list.data && rows.length === 0 && <Empty cols={7} />}
            {rows.map((c) => (
              <tr key={c.reference} data-testid="bo-promo-claim" data-member={c.member_id} data-task={c.task_id}>
                <td>{c.member_id}</td><td>#{c.task_id} {taskName(c.task_id)}</td><td>{c.period}</td><td>{money(c.cash)} {c.currency}</td>
                <td>{t(`bo.promo.state.${c.state}`)}{c.reason ? ` — ${c.reason}` : ''}{c.staff_id ? ` · ${c.staff_id}` : ''}</td>
                <td><Time value={c.created_ms} /></td>
                <td>
                  {c.state === 'pending' && (
                    <div className="bo-pdesk__review">
                      <button type="button" className="bo-btn bo-btn--primary" data-testid="bo-promo-claim-approve" onClick={() => void review(c, true)}>{t('bo.seasons.approve')}</button>
                      <input value={reasons[c.reference] ?? ''} maxLength={500} placeholder={t('bo.seasons.reason')} data-testid="bo-promo-claim-reason"
                        onChange={(e) => setReasons((x) => ({ ...x, [c.reference]: e.target.value }))} />
                      <button type="button" className="bo-btn" data-testid="bo-promo-claim-reject" onClick={() => void review(c, false)}>{t('bo.seasons.reject')}</button>
                      <FieldError msg={invalid[c.reference]} />
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

// ------------------------------------------------------------------ prize board

interface BoardAnswer { board: BoardDef; week: number; stock: Array<{ slot: number; stock: number; taken: number }> }

function BoardDesk() {
  const t = useT();
  const list = useList<BoardAnswer>('/board');
  const [form, setForm] = useState<BoardForm | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const saver = useSave();
  useEffect(() => {
    if (list.data) setForm(boardForm(list.data.board));
  }, [list.data]);
  if (!form || !list.data) return <ErrorBox error={list.error} />;
  const week = list.data.stock;
  const left = form.prizes.map((p) => {
    const s = week.find((w) => w.slot === p.slot);
    return s ? Math.max(0, s.stock - s.taken) : Number(p.stock) || 0;
  });
  const odds = chances(form.prizes.map((p, i) => ({ weight: p.weight, left: left[i] ?? 0 })));
  const setPrize = (i: number, patch: Partial<BoardForm['prizes'][number]>) => setForm({ ...form, prizes: form.prizes.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateBoard(form);
    setErrors(found);
    if (hasErrors(found)) return;
    if (await saver.save('/board', boardBody(form), t('bo.promo.saved'))) await list.reload();
  };
  return (
    <form className="bo-pdesk" onSubmit={(e) => void submit(e)} noValidate data-testid="bo-promo-board">
      <div className="bo-pdesk__three">
        <Field label={t('bo.promo.f.draw_period')}>
          <select value={form.period} onChange={(e) => setForm({ ...form, period: e.target.value })}>
            {['day', 'week'].map((p) => <option key={p} value={p}>{t(`bo.promo.draw_period.${p}`)}</option>)}
          </select>
        </Field>
        <Field label={t('bo.promo.f.turnover_multiple')} error={errors.turnover_multiple}>
          <input value={form.turnover_multiple} inputMode="decimal" onChange={(e) => setForm({ ...form, turnover_multiple: e.target.value })} />
        </Field>
        <label className="bo-check"><input type="checkbox" checked={form.open} onChange={(e) => setForm({ ...form, open: e.target.checked })} /> {t('bo.promo.f.open')}</label>
      </div>
      <p className="bo-muted">{t('bo.promo.board_note')}</p>
      <FieldError msg={errors.prizes} />
      <div className="bo-pdesk__prizes">
        {form.prizes.map((p, i) => (
          <div key={p.slot} className="bo-pdesk__card" data-testid="bo-promo-prize">
            <div className="bo-pdesk__prizehead">
              <strong>#{p.slot}</strong>
              <span className="bo-muted" data-testid="bo-promo-prize-left">{t('bo.promo.left_week', left[i] ?? 0, p.stock)} · {odds[i]}%</span>
            </div>
            <TextsInput label={t('bo.promo.f.name')} value={p.name} field={`prizes.${i}.name`} errors={errors} testId={`bo-promo-p-name-${p.slot}`}
              onChange={(v) => setPrize(i, { name: v })} />
            <div className="bo-pdesk__four">
              <Field label={t('bo.promo.f.kind')}>
                <select value={p.kind} onChange={(e) => setPrize(i, { kind: e.target.value })}>
                  {['cash', 'physical'].map((k) => <option key={k} value={k}>{t(`bo.promo.kind.${k}`)}</option>)}
                </select>
              </Field>
              <Field label={t('bo.promo.f.cash')} error={errors[`prizes.${i}.cash`]}>
                <input value={p.kind === 'cash' ? p.cash : '—'} disabled={p.kind !== 'cash'} inputMode="decimal" onChange={(e) => setPrize(i, { cash: e.target.value })} />
              </Field>
              <Field label={t('bo.promo.f.weight')} error={errors[`prizes.${i}.weight`]}>
                <input value={p.weight} inputMode="numeric" onChange={(e) => setPrize(i, { weight: e.target.value })} />
              </Field>
              <Field label={t('bo.promo.f.weekly_stock')} error={errors[`prizes.${i}.stock`]}>
                <input value={p.stock} inputMode="numeric" onChange={(e) => setPrize(i, { stock: e.target.value })} />
              </Field>
            </div>
          </div>
        ))}
      </div>
      {hasErrors(errors) && <p className="bo-alert" role="alert" data-testid="bo-promo-invalid">{t('bo.promo.v.fix')}</p>}
      <ErrorBox error={saver.error ?? list.error} testId="bo-promo-error" />
      <Done text={saver.done} testId="bo-promo-done" />
      <button type="submit" className="bo-btn bo-btn--primary" disabled={saver.busy} data-testid="bo-promo-b-save">{t('common.save')}</button>
    </form>
  );
}

// ------------------------------------------------------------------ goods

function GoodsDesk() {
  const t = useT();
  const lang = useAppSelector(selectLanguage) ?? 'eng';
  const list = useList<GoodsDef[]>('/goods');
  const rows = list.data ?? [];
  const [editing, setEditing] = useState<GoodsDef | null>(null);
  const [form, setForm] = useState<GoodsForm>(() => goodsForm(null));
  const [errors, setErrors] = useState<Errors>({});
  const saver = useSave();
  // a new item's id is the next free one: the form opens once the list is there
  const seeded = useRef(false);
  useEffect(() => {
    if (list.data && !seeded.current) {
      seeded.current = true;
      setForm(goodsForm(null, list.data));
    }
  }, [list.data]);
  const edit = (g: GoodsDef | null) => {
    setEditing(g);
    setForm(goodsForm(g, rows));
    setErrors({});
    saver.setError(null);
  };
  const set = <K extends keyof GoodsForm>(k: K, v: GoodsForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateGoods(form, rows, !editing);
    setErrors(found);
    if (hasErrors(found)) return;
    if (await saver.save('/goods', goodsBody(form), t('bo.promo.saved'))) {
      setEditing(null);
      setForm(goodsForm(null, [...rows, goodsBody(form)]));
      await list.reload();
    }
  };
  if (!list.data) return list.error ? <ErrorBox error={list.error} /> : <Loading />;
  return (
    <div className="bo-cdesk">
      <div className="bo-cdesk__list">
        <ErrorBox error={list.error} />
        <Done text={saver.done} testId="bo-promo-done" />
        <table className="bo-table" data-testid="bo-promo-goods">
          <thead><tr><th>#</th><th>{t('bo.promo.f.name')}</th><th>{t('bo.promo.f.kind')}</th><th className="num">{t('bo.promo.f.points')}</th><th className="num">{t('bo.promo.f.stock')}</th><th className="num">{t('bo.promo.f.limit')}</th><th>{t('bo.promo.f.on_sale')}</th><th /></tr></thead>
          <tbody>
            {list.data && rows.length === 0 && <Empty cols={8} />}
            {rows.map((g) => (
              <tr key={g.id} data-testid="bo-promo-goods-row" data-id={g.id}>
                <td>{g.id}</td>
                <td>{textIn(textsOf(g.name), lang)}</td>
                <td>{t(`bo.promo.kind.${g.kind}`)}{g.kind === 'cash' ? ` ${money(String(g.cash ?? ''))}` : ''}</td>
                <td className="num">{String(g.points)}</td>
                <td className="num">{t('bo.promo.left_of', g.left ?? g.stock, g.stock)}</td>
                <td className="num">{g.limit || '—'}</td>
                <td>{g.on_sale ? '✓' : '—'}</td>
                <td><button type="button" className="bo-chip" data-testid="bo-promo-goods-edit" onClick={() => edit(g)}>{t('bo.content.edit')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="bo-cdesk__form" onSubmit={(e) => void submit(e)} noValidate data-testid="bo-promo-goods-form">
        <h3 className="bo-cdesk__heading">{editing ? t('bo.content.editing', editing.id) : t('bo.promo.new_goods')}</h3>
        <div className="bo-form__row">
          <Field label="id" error={errors.id}><input value={form.id} inputMode="numeric" disabled={Boolean(editing)} data-testid="bo-promo-g-id" onChange={(e) => set('id', e.target.value)} /></Field>
          <Field label={t('bo.promo.f.kind')}>
            <select value={form.kind} data-testid="bo-promo-g-kind" onChange={(e) => set('kind', e.target.value)}>
              {['physical', 'cash'].map((k) => <option key={k} value={k}>{t(`bo.promo.kind.${k}`)}</option>)}
            </select>
          </Field>
        </div>
        <TextsInput label={t('bo.promo.f.name')} value={form.name} field="name" errors={errors} testId="bo-promo-g-name" onChange={(v) => set('name', v)} />
        <TextsInput label={t('bo.promo.f.desc')} value={form.desc} field="desc" errors={errors} testId="bo-promo-g-desc" area onChange={(v) => set('desc', v)} />
        <Field label={t('bo.promo.f.img')} error={errors.img}><input value={form.img} placeholder="https://" onChange={(e) => set('img', e.target.value)} /></Field>
        <div className="bo-form__row">
          <Field label={t('bo.promo.f.points')} error={errors.points}><input value={form.points} inputMode="decimal" data-testid="bo-promo-g-points" onChange={(e) => set('points', e.target.value)} /></Field>
          <Field label={t('bo.promo.f.cash')} error={errors.cash}>
            <input value={form.kind === 'cash' ? form.cash : '—'} disabled={form.kind !== 'cash'} inputMode="decimal" data-testid="bo-promo-g-cash" onChange={(e) => set('cash', e.target.value)} />
          </Field>
        </div>
        <div className="bo-form__row">
          <Field label={t('bo.promo.f.stock')} error={errors.stock}><input value={form.stock} inputMode="numeric" data-testid="bo-promo-g-stock" onChange={(e) => set('stock', e.target.value)} /></Field>
          <Field label={t('bo.promo.f.limit')} error={errors.limit}><input value={form.limit} inputMode="numeric" data-testid="bo-promo-g-limit" onChange={(e) => set('limit', e.target.value)} /></Field>
        </div>
        <p className="bo-muted">{t('bo.promo.goods_note')}</p>
        <label className="bo-check"><input type="checkbox" checked={form.on_sale} data-testid="bo-promo-g-on-sale" onChange={(e) => set('on_sale', e.target.checked)} /> {t('bo.promo.f.on_sale')}</label>
        {hasErrors(errors) && <p className="bo-alert" role="alert" data-testid="bo-promo-invalid">{t('bo.promo.v.fix')}</p>}
        <ErrorBox error={saver.error} testId="bo-promo-error" />
        <div className="bo-chips">
          <button type="submit" className="bo-btn bo-btn--primary" disabled={saver.busy} data-testid="bo-promo-g-save">{t('common.save')}</button>
          {editing && <button type="button" className="bo-btn bo-btn--ghost-dark" onClick={() => edit(null)}>{t('common.cancel')}</button>}
        </div>
      </form>
    </div>
  );
}

// ------------------------------------------------------------------ fulfilment

interface FulfilmentRow { source: string; id: string; member_id: string; item: string; qty: number; address: string; state: string; created_ms: number; shipped_ms: number; shipped_by: string }
const SHIP_STATES = ['to_ship', 'shipped'] as const;

function Fulfilment() {
  const t = useT();
  const [state, setState] = useState<(typeof SHIP_STATES)[number]>('to_ship');
  const list = useList<FulfilmentRow[]>(`/fulfilment?state=${state}`);
  const saver = useSave();
  const rows = list.data ?? [];
  const ship = async (r: FulfilmentRow) => {
    if (await saver.save('/fulfilment/ship', { source: r.source, id: r.id }, t('bo.seasons.shipped_done', r.member_id))) await list.reload();
  };
  return (
    <div className="bo-stack">
      <StateChips states={SHIP_STATES} value={state} onChange={setState} prefix="bo-promo-ship" />
      <ErrorBox error={saver.error ?? list.error} testId="bo-promo-error" />
      <Done text={saver.done} testId="bo-promo-done" />
      <div className="bo-scroll">
        <table className="bo-table" data-testid="bo-promo-fulfilment">
          <thead><tr><th>{t('bo.promo.f.source')}</th><th>{t('bo.seasons.member')}</th><th>{t('bo.seasons.prize')}</th><th className="num">{t('bo.promo.f.qty')}</th><th>{t('bo.seasons.address')}</th><th>{t('bo.seasons.time')}</th><th /></tr></thead>
          <tbody>
            {list.data && rows.length === 0 && <Empty cols={7} />}
            {rows.map((r) => (
              <tr key={`${r.source}:${r.id}`} data-testid="bo-promo-ship-row">
                <td>{t(`bo.promo.source.${r.source}`)}<br /><code>{r.id}</code></td>
                <td>{r.member_id}</td><td>{r.item}</td><td className="num">{r.qty}</td>
                <td>{r.address ? addressLine(r.address) : <em className="bo-field__error">{t('bo.promo.no_address')}</em>}</td>
                <td><Time value={r.state === 'shipped' ? r.shipped_ms : r.created_ms} />{r.shipped_by ? ` · ${r.shipped_by}` : ''}</td>
                <td>{r.state === 'to_ship' && <button type="button" className="bo-btn bo-btn--primary" data-testid="bo-promo-ship" onClick={() => void ship(r)}>{t('bo.seasons.ship')}</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

// ------------------------------------------------------------------ referrals

interface ReferralRow { referee_id: string; referrer_id: string; username: string; code: string; device_id: string; registered_ms: number; state: string; reason: string; bonus: string; currency: string; decided_ms: number }
const REFERRAL_STATES = ['all', 'pending', 'paid', 'refused'] as const;

function Referral() {
  const t = useT();
  const settings = useList<Record<string, unknown>>('/referral');
  const [state, setState] = useState<(typeof REFERRAL_STATES)[number]>('all');
  const records = useList<ReferralRow[]>(`/referrals?state=${state}`);
  const [form, setForm] = useState<ReferralForm | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const saver = useSave();
  useEffect(() => {
    if (settings.data) setForm(referralForm(settings.data));
  }, [settings.data]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!form) return;
    const found = validateReferral(form);
    setErrors(found);
    if (hasErrors(found)) return;
    if (await saver.save('/referral', referralBody(form), t('bo.promo.saved'))) await settings.reload();
  };
  const rows = records.data ?? [];
  return (
    <div className="bo-stack">
      {form && (
        <form className="bo-pdesk" onSubmit={(e) => void submit(e)} noValidate data-testid="bo-promo-referral">
          <div className="bo-pdesk__four">
            {(['min_deposit', 'gift', 'days', 'turnover_multiple'] as const).map((k) => (
              <Field key={k} label={t(`bo.promo.f.ref_${k}`)} error={errors[k]}>
                <input value={form[k]} inputMode="decimal" data-testid={`bo-promo-r-${k}`} onChange={(e) => setForm({ ...form, [k]: e.target.value })} />
              </Field>
            ))}
          </div>
          <p className="bo-muted">{t('bo.promo.referral_note')}</p>
          <ErrorBox error={saver.error ?? settings.error} testId="bo-promo-error" />
          <Done text={saver.done} testId="bo-promo-done" />
          <button type="submit" className="bo-btn bo-btn--primary" disabled={saver.busy} data-testid="bo-promo-r-save">{t('common.save')}</button>
        </form>
      )}
      <h3 className="bo-cdesk__heading">{t('bo.promo.referrals')}</h3>
      <StateChips states={REFERRAL_STATES} value={state} onChange={setState} prefix="bo-promo-ref" />
      <ErrorBox error={records.error} />
      <div className="bo-scroll">
        <table className="bo-table" data-testid="bo-promo-referrals">
          <thead><tr><th>{t('bo.promo.f.referrer')}</th><th>{t('bo.promo.f.referee')}</th><th>{t('bo.promo.f.registered')}</th><th>{t('bo.seasons.state')}</th><th className="num">{t('bo.promo.f.gift')}</th><th>{t('bo.promo.f.decided')}</th></tr></thead>
          <tbody>
            {records.data && rows.length === 0 && <Empty cols={6} />}
            {rows.map((r) => (
              <tr key={r.referee_id} data-testid="bo-promo-referral-row">
                <td>{r.referrer_id}<br /><code>{r.code}</code></td>
                <td>{r.username}<br /><code>{r.device_id}</code></td>
                <td><Time value={r.registered_ms} /></td>
                <td>{t(`bo.promo.state.${r.state}`)}{r.reason ? ` — ${r.reason}` : ''}</td>
                <td className="num">{r.bonus ? `${money(r.bonus)} ${r.currency}` : '—'}</td>
                <td>{r.decided_ms ? <Time value={r.decided_ms} /> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * The marketing desk (role marketing or admin; docs/content.md): notices for the header
 * marquee, banners, covers, runtime popups, news and help pages (list, edit, delete, and a
 * preview of what members get before saving), campaign messages to segments, and the
 * audit of every change with the staff id. Plain calls to /api/backoffice/content.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { boFetch, toBoError, type BoError } from './api';
import { selectBackoffice } from './backofficeSlice';
import { ErrorBox, Panel, Time } from './parts';
import './contentDesk.css';

export const CONTENT_KINDS = ['notice', 'banner', 'cover', 'popup', 'news', 'help'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];
type Tab = ContentKind | 'campaigns' | 'log';

interface Row {
  id: number; kind: string; lang: string; slug: string; title: string; body: Record<string, unknown>;
  sort: number; active: boolean; starts_ms: number; ends_ms: number; updated_ms: number; updated_by: string;
}
type Field = { name: string; type: 'text' | 'textarea' | 'number' | 'select' | 'json' | 'bool' | 'time'; options?: string[] };

const LANG: Field = { name: 'lang', type: 'select', options: ['', 'zhh', 'eng', 'tha'] };
const COMMON: Field[] = [LANG, { name: 'sort', type: 'number' }, { name: 'active', type: 'bool' }, { name: 'starts_ms', type: 'time' }, { name: 'ends_ms', type: 'time' }];

/** The fields of each kind (domain::content::validate checks them again). */
export const FIELDS: Record<ContentKind, Field[]> = {
  notice: [{ name: 'content', type: 'textarea' }, ...COMMON],
  banner: [{ name: 'place', type: 'select', options: ['index', 'list'] }, { name: 'title', type: 'text' }, { name: 'img', type: 'text' }, { name: 'link', type: 'text' }, ...COMMON],
  cover: [{ name: 'title', type: 'text' }, { name: 'img', type: 'text' }, { name: 'link', type: 'text' }, { name: 'gameinfo', type: 'json' }, ...COMMON],
  popup: [
    { name: 'title', type: 'text' }, { name: 'style', type: 'select', options: ['message', 'template', 'iframe'] }, { name: 'content', type: 'textarea' },
    { name: 'url', type: 'text' }, { name: 'img', type: 'text' }, { name: 'link', type: 'text' },
    { name: 'audience', type: 'select', options: ['all', 'guests', 'members'] },
    { name: 'repeat', type: 'select', options: ['never', 'daily', 'weekly', 'monthly', 'custom'] }, { name: 'minutes', type: 'number' }, ...COMMON,
  ],
  news: [{ name: 'title', type: 'text' }, { name: 'type', type: 'select', options: ['1', '2', '3'] }, { name: 'summary', type: 'textarea' }, { name: 'content', type: 'textarea' }, { name: 'img', type: 'text' }, ...COMMON],
  help: [{ name: 'title', type: 'text' }, { name: 'slug', type: 'text' }, { name: 'content', type: 'textarea' }, { ...LANG, options: ['zhh', 'eng', 'tha'] }, { name: 'sort', type: 'number' }, { name: 'active', type: 'bool' }],
};

type Form = Record<string, string | boolean>;

/** A form's values from a stored row (or the kind's defaults). */
export function formOf(kind: ContentKind, row?: Row | null): Form {
  const form: Form = {};
  for (const f of FIELDS[kind]) {
    const stored = row ? (f.name in row ? (row as unknown as Record<string, unknown>)[f.name] : row.body[f.name]) : undefined;
    if (f.type === 'bool') form[f.name] = stored === undefined ? true : Boolean(stored);
    else if (f.type === 'json') form[f.name] = stored === undefined ? '' : JSON.stringify(stored, null, 1);
    else if (f.type === 'time') form[f.name] = stored ? toLocalInput(Number(stored)) : '';
    else if (f.type === 'select') form[f.name] = stored === undefined ? (f.options?.[0] ?? '') : String(stored);
    else form[f.name] = stored === undefined || stored === null ? '' : String(stored);
  }
  return form;
}

const toLocalInput = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};

/** The JSON body the desk's API takes; a gameinfo that is not JSON stays text (the server refuses it with its message). */
export function bodyOf(kind: ContentKind, form: Form): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of FIELDS[kind]) {
    const v = form[f.name];
    if (f.type === 'bool') body[f.name] = Boolean(v);
    else if (f.type === 'number') body[f.name] = v === '' ? 0 : Number(v);
    else if (f.type === 'time') body[f.name] = v ? new Date(String(v)).getTime() : 0;
    else if (f.type === 'json') {
      if (String(v).trim() === '') continue;
      try { body[f.name] = JSON.parse(String(v)); } catch { body[f.name] = String(v); }
    } else if (f.name === 'type') body[f.name] = Number(v);
    else body[f.name] = v;
  }
  return body;
}

function useBo() {
  const token = useAppSelector((s) => selectBackoffice(s).auth?.token ?? null);
  return useCallback(<T,>(method: 'GET' | 'POST', path: string, body?: unknown) => boFetch<T>({ method, path, body, token }), [token]);
}

export function ContentDesk() {
  const t = useT();
  const [tab, setTab] = useState<Tab>('notice');
  return (
    <Panel title={t('bo.content.title')} testId="bo-content"
      actions={
        <div className="bo-chips bo-chips--wrap" role="radiogroup">
          {([...CONTENT_KINDS, 'campaigns', 'log'] as Tab[]).map((x) => (
            <button key={x} type="button" role="radio" aria-checked={tab === x} data-testid={`bo-content-tab-${x}`}
              className={tab === x ? 'bo-chip is-active' : 'bo-chip'} onClick={() => setTab(x)}>{t(`bo.content.tab.${x}`)}</button>
          ))}
        </div>
      }>
      {tab === 'campaigns' ? <Campaigns /> : tab === 'log' ? <AuditLog /> : <KindDesk key={tab} kind={tab} />}
    </Panel>
  );
}

function KindDesk({ kind }: { kind: ContentKind }) {
  const t = useT();
  const bo = useBo();
  const [rows, setRows] = useState<Row[]>([]);
  const [editing, setEditing] = useState<Row | null>(null);
  const [form, setForm] = useState<Form>(() => formOf(kind));
  const [preview, setPreview] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState<BoError | null>(null);
  const [done, setDone] = useState('');
  const load = useCallback(async () => {
    try {
      setRows((await bo<{ list: Row[] }>('GET', `/content/${kind}`)).list);
    } catch (e) {
      setError(toBoError(e));
    }
  }, [bo, kind]);
  useEffect(() => void load(), [load]);
  const edit = (row: Row | null) => {
    setEditing(row);
    setForm(formOf(kind, row));
    setPreview(null);
    setError(null);
    setDone('');
  };
  const run = async (what: 'preview' | 'save') => {
    setError(null);
    setDone('');
    try {
      if (what === 'preview') {
        setPreview(await bo<Record<string, unknown>>('POST', `/content/${kind}/preview`, bodyOf(kind, form)));
        return;
      }
      const path = editing ? `/content/${kind}/${editing.id}` : `/content/${kind}`;
      await bo('POST', path, bodyOf(kind, form));
      setDone(t('bo.content.saved'));
      edit(null);
      setDone(t('bo.content.saved'));
      await load();
    } catch (e) {
      setError(toBoError(e));
    }
  };
  const remove = async (row: Row) => {
    try {
      await bo('POST', `/content/${kind}/${row.id}/delete`);
      if (editing?.id === row.id) edit(null);
      await load();
    } catch (e) {
      setError(toBoError(e));
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run('save');
  };
  return (
    <div className="bo-cdesk">
      <div className="bo-cdesk__list">
        {rows.length === 0 ? <p className="bo-empty">{t('bo.content.empty')}</p> : (
          <table className="bo-table" data-testid="bo-content-list">
            <thead><tr><th>#</th><th>{t('bo.content.item')}</th><th>{t('bo.content.f.lang')}</th><th>{t('bo.content.f.active')}</th><th>{t('bo.content.by')}</th><th /></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid={`bo-content-row-${r.id}`}>
                  <td>{r.id}</td>
                  <td className="bo-cdesk__summary">{r.title || String(r.body.content ?? r.body.img ?? r.slug ?? '')}</td>
                  <td>{r.lang || t('bo.content.all_langs')}</td>
                  <td>{r.active ? '✓' : '—'}</td>
                  <td>{r.updated_by}<br /><Time value={r.updated_ms} /></td>
                  <td className="bo-cdesk__actions">
                    <button type="button" className="bo-chip" data-testid="bo-content-edit" onClick={() => edit(r)}>{t('bo.content.edit')}</button>
                    <button type="button" className="bo-chip" data-testid="bo-content-delete" onClick={() => void remove(r)}>{t('bo.content.delete')}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <form className="bo-cdesk__form" onSubmit={submit} noValidate data-testid="bo-content-form">
        <h3 className="bo-cdesk__heading">{editing ? t('bo.content.editing', editing.id) : t('bo.content.new')}</h3>
        {FIELDS[kind].map((f) => <FieldInput key={f.name} field={f} value={form[f.name] ?? ''} onChange={(v) => setForm((x) => ({ ...x, [f.name]: v }))} />)}
        <ErrorBox error={error} testId="bo-content-error" />
        {done && <p className="bo-muted" role="status" data-testid="bo-content-done">{done}</p>}
        <div className="bo-chips">
          <button type="button" className="bo-btn bo-btn--ghost-dark" data-testid="bo-content-preview" onClick={() => void run('preview')}>{t('bo.content.preview')}</button>
          <button type="submit" className="bo-btn bo-btn--primary" data-testid="bo-content-save">{t('common.save')}</button>
          {editing && <button type="button" className="bo-btn bo-btn--ghost-dark" onClick={() => edit(null)}>{t('common.cancel')}</button>}
        </div>
        {preview && <Preview kind={kind} item={preview} />}
      </form>
    </div>
  );
}

function FieldInput({ field, value, onChange }: { field: Field; value: string | boolean; onChange: (v: string | boolean) => void }) {
  const t = useT();
  const label = t(`bo.content.f.${field.name}`);
  const testId = `bo-content-f-${field.name}`;
  if (field.type === 'bool') {
    return <label className="bo-check"><input type="checkbox" checked={Boolean(value)} data-testid={testId} onChange={(e) => onChange(e.target.checked)} /> {label}</label>;
  }
  return (
    <label className="bo-field">
      <span>{label}</span>
      {field.type === 'select' ? (
        <select value={String(value)} data-testid={testId} onChange={(e) => onChange(e.target.value)}>
          {field.options!.map((o) => <option key={o} value={o}>{o === '' ? t('bo.content.all_langs') : o}</option>)}
        </select>
      ) : field.type === 'textarea' || field.type === 'json' ? (
        <textarea rows={field.type === 'json' ? 5 : 3} value={String(value)} data-testid={testId} onChange={(e) => onChange(e.target.value)}
          placeholder={field.type === 'json' ? '[{"HomeTeamId":1,"AwayTeamId":2,"HomeTeamName":"A","AwayTeamName":"B","MatchStartDateGMT":"2026-06-01 18:00"}]' : undefined} />
      ) : (
        <input type={field.type === 'number' ? 'number' : field.type === 'time' ? 'datetime-local' : 'text'} value={String(value)} data-testid={testId}
          onChange={(e) => onChange(e.target.value)} />
      )}
    </label>
  );
}

/** What members would see, drawn like the member screens draw it. */
function Preview({ kind, item }: { kind: ContentKind; item: Record<string, unknown> }) {
  const t = useT();
  const s = (k: string) => (item[k] === undefined || item[k] === null ? '' : String(item[k]));
  return (
    <div className="bo-cpreview" data-testid="bo-content-preview-box">
      <p className="bo-muted">{t('bo.content.preview_note')}</p>
      {kind === 'notice' && <div className="bo-cpreview__marquee">{s('content')}</div>}
      {(kind === 'banner' || (kind === 'cover' && s('img'))) && <img className="bo-cpreview__img" src={s('img')} alt={s('title')} />}
      {kind === 'cover' && Array.isArray(item.gameinfo) && (
        <ul>{(item.gameinfo as Array<Record<string, string>>).map((g, i) => <li key={i}>{g.HomeTeamName} vs {g.AwayTeamName} — {g.MatchStartDateGMT}</li>)}</ul>
      )}
      {kind === 'popup' && (
        <div className="bo-cpreview__popup">
          <strong>{s('title')}</strong>
          {s('style') === 'iframe' ? <iframe src={s('url')} title={s('title')} sandbox="" /> : <p>{s('content')}</p>}
          <small>{t('bo.content.popup_rule', s('audience'), s('repeat'), s('interval'))}</small>
        </div>
      )}
      {(kind === 'news' || kind === 'help') && (
        <article className="bo-cpreview__article"><h3>{s('title')}</h3>{s('summary') && <em>{s('summary')}</em>}<p>{s('content')}</p></article>
      )}
    </div>
  );
}

interface CampaignRow { id: number; title: string; content: string; segment: Record<string, unknown>; recipients: number; staff_id: string; created_ms: number }

function Campaigns() {
  const t = useT();
  const bo = useBo();
  const [list, setList] = useState<CampaignRow[]>([]);
  const [form, setForm] = useState({ title: '', content: '', type: 'all', from: '1', to: '10', usernames: '' });
  const [error, setError] = useState<BoError | null>(null);
  const [done, setDone] = useState('');
  const load = useCallback(async () => {
    try { setList((await bo<{ list: CampaignRow[] }>('GET', '/campaigns')).list); } catch (e) { setError(toBoError(e)); }
  }, [bo]);
  useEffect(() => void load(), [load]);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const send = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setDone('');
    const segment = form.type === 'vip' ? { type: 'vip', from: Number(form.from), to: Number(form.to) }
      : form.type === 'users' ? { type: 'users', usernames: form.usernames } : { type: 'all' };
    try {
      const sent = await bo<CampaignRow>('POST', '/campaigns', { title: form.title, content: form.content, segment });
      setDone(t('bo.content.sent', sent.recipients));
      setForm((f) => ({ ...f, title: '', content: '' }));
      await load();
    } catch (err) {
      setError(toBoError(err));
    }
  };
  return (
    <div className="bo-cdesk">
      <div className="bo-cdesk__list">
        {list.length === 0 ? <p className="bo-empty">{t('bo.content.empty')}</p> : (
          <table className="bo-table" data-testid="bo-campaign-list">
            <thead><tr><th>#</th><th>{t('bo.content.f.title')}</th><th>{t('bo.content.segment')}</th><th className="num">{t('bo.content.recipients')}</th><th>{t('bo.content.by')}</th></tr></thead>
            <tbody>{list.map((c) => (
              <tr key={c.id}><td>{c.id}</td><td>{c.title}</td><td><code>{JSON.stringify(c.segment)}</code></td><td className="num">{c.recipients}</td><td>{c.staff_id}<br /><Time value={c.created_ms} /></td></tr>
            ))}</tbody>
          </table>
        )}
      </div>
      <form className="bo-cdesk__form" onSubmit={send} noValidate data-testid="bo-campaign-form">
        <h3 className="bo-cdesk__heading">{t('bo.content.new_campaign')}</h3>
        <label className="bo-field"><span>{t('bo.content.f.title')}</span><input value={form.title} onChange={set('title')} data-testid="bo-campaign-title" /></label>
        <label className="bo-field"><span>{t('bo.content.f.content')}</span><textarea rows={3} value={form.content} onChange={set('content')} data-testid="bo-campaign-content" /></label>
        <label className="bo-field"><span>{t('bo.content.segment')}</span>
          <select value={form.type} onChange={set('type')} data-testid="bo-campaign-segment">
            {['all', 'vip', 'users'].map((x) => <option key={x} value={x}>{t(`bo.content.segment.${x}`)}</option>)}
          </select>
        </label>
        {form.type === 'vip' && (
          <div className="bo-chips">
            <label className="bo-field"><span>{t('bo.content.vip_from')}</span><input type="number" min={1} max={10} value={form.from} onChange={set('from')} /></label>
            <label className="bo-field"><span>{t('bo.content.vip_to')}</span><input type="number" min={1} max={10} value={form.to} onChange={set('to')} /></label>
          </div>
        )}
        {form.type === 'users' && (
          <label className="bo-field"><span>{t('bo.content.usernames')}</span><textarea rows={3} value={form.usernames} onChange={set('usernames')} data-testid="bo-campaign-usernames" /></label>
        )}
        <ErrorBox error={error} testId="bo-campaign-error" />
        {done && <p className="bo-muted" role="status" data-testid="bo-campaign-done">{done}</p>}
        <button type="submit" className="bo-btn bo-btn--primary" data-testid="bo-campaign-send">{t('bo.content.send')}</button>
      </form>
    </div>
  );
}

interface AuditRow { id: number; staff_id: string; action: string; kind: string; item_id: number; body: unknown; at_ms: number }

function AuditLog() {
  const t = useT();
  const bo = useBo();
  const [rows, setRows] = useState<AuditRow[]>([]);
  const [error, setError] = useState<BoError | null>(null);
  useEffect(() => {
    bo<{ list: AuditRow[] }>('GET', '/content-audit?limit=200').then((d) => setRows(d.list)).catch((e) => setError(toBoError(e)));
  }, [bo]);
  return (
    <>
      <ErrorBox error={error} />
      <div className="bo-scroll">
        <table className="bo-table" data-testid="bo-content-audit">
          <thead><tr><th>{t('bo.content.when')}</th><th>{t('bo.content.by')}</th><th>{t('bo.content.action')}</th><th>{t('bo.content.kind')}</th><th>#</th><th /></tr></thead>
          <tbody>{rows.map((r) => (
            <tr key={r.id}><td><Time value={r.at_ms} /></td><td>{r.staff_id}</td><td>{r.action}</td><td>{r.kind}</td><td>{r.item_id}</td>
              <td><code className="bo-cdesk__json">{r.body === null ? '' : JSON.stringify(r.body).slice(0, 120)}</code></td></tr>
          ))}</tbody>
        </table>
      </div>
    </>
  );
}

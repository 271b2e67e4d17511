/**
 * The promotions desk's forms (docs/promotions.md "Back office"): campaigns, task
 * definitions, the prize board, shop goods and referral settings as the desk edits them,
 * their validation (the same bounds `domain::promo` checks, so a form is refused before it
 * is sent) and the bodies /api/backoffice/promo/* takes. Messages are language-file keys.
 * Pure functions: tested in promoDesk.test.ts.
 */

export const LANGS = ['zhh', 'eng', 'tha'] as const;
export type Lang = (typeof LANGS)[number];
/** A text per member language; an older single string reads as the same text in each. */
export type Texts = Record<Lang, string>;

export interface Msg {
  key: string;
  args?: Array<string | number>;
}
/** Field path ('name.tha', 'prizes.3.weight', 'rule.percent' ...) to its message. */
export type Errors = Record<string, Msg>;

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

export function textsOf(v: unknown): Texts {
  if (typeof v === 'string') return { zhh: v, eng: v, tha: v };
  const o = (v ?? {}) as Record<string, unknown>;
  return { zhh: str(o.zhh), eng: str(o.eng), tha: str(o.tha) };
}

/** The text shown in a staff list: the desk's language, else eng, else any. */
export function textIn(t: Texts, lang: string): string {
  const wanted = (LANGS as readonly string[]).includes(lang) ? t[lang as Lang] : '';
  return [wanted, t.eng, t.zhh, t.tha].find((x) => x && x.trim()) ?? '';
}

const count = (s: string) => [...s.trim()].length;

/** Every language 1 to `max` characters (task titles, prize and goods names). */
export function checkTexts(errors: Errors, field: string, t: Texts, max: number, required = true) {
  for (const l of LANGS) {
    const n = count(t[l]);
    if (required && n === 0) errors[`${field}.${l}`] = { key: 'bo.promo.v.text_required', args: [l] };
    else if (n > max) errors[`${field}.${l}`] = { key: 'bo.promo.v.text_max', args: [max] };
  }
}

const DECIMAL = /^\d+(\.\d{1,2})?$/;
/** A non-negative amount with at most 2 places, up to `max`; `positive`: above 0. */
export function checkAmount(errors: Errors, field: string, v: string, max: number, positive = false) {
  const s = v.trim();
  if (s === '') errors[field] = { key: 'validation.required' };
  else if (!DECIMAL.test(s) || Number(s) > max) errors[field] = { key: 'bo.promo.v.amount', args: [max] };
  else if (positive && Number(s) <= 0) errors[field] = { key: 'bo.promo.v.positive' };
}

/** A whole number from `min` to `max`. */
export function checkInt(errors: Errors, field: string, v: string, min: number, max: number) {
  const s = v.trim();
  if (s === '') errors[field] = { key: 'validation.required' };
  else if (!/^\d+$/.test(s) || Number(s) < min || Number(s) > max) errors[field] = { key: 'bo.promo.v.int', args: [min, max] };
}

export const hasErrors = (e: Errors) => Object.keys(e).length > 0;

// ------------------------------------------------------------------ campaigns

export const RULES = ['first_deposit', 'reload', 'turnover', 'loss_rebate'] as const;
export type RuleType = (typeof RULES)[number];
export const REPEATS = ['once', 'daily', 'weekly', 'monthly'] as const;
export const CURRENCIES = ['CNY', 'USD', 'THB'] as const;

export interface PageForm { title: string; body: string; banner: string }
export interface CampaignForm {
  id: string;
  slug: string;
  pages: Record<Lang, PageForm>;
  currencies: string[];
  min_vip_level: string;
  new_member_days: string;
  /** datetime-local values (the desk's local time). */
  start: string;
  end: string;
  repeat: string;
  rule: RuleType;
  percent: string;
  /** min_deposit (first deposit, reload) or min_loss (loss rebate). */
  minimum: string;
  max_bonus: string;
  /** Turnover tiers, one `turnover bonus` pair a line. */
  tiers: string;
  turnover_multiple: string;
  enabled: boolean;
}

export interface CampaignDef {
  id: number; slug: string; pages: Record<string, { title: string; body?: string; banner?: string }>;
  audience?: { currencies?: string[]; min_vip_level?: number; new_member_days?: number };
  start_ms: number; end_ms: number; repeat: string; rule: Record<string, unknown> & { type: string };
  turnover_multiple: string | number; enabled: boolean;
}

export const toLocalInput = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};

/** The form of a stored campaign, or a new one (the next free id, a month from now). */
export function campaignForm(c: CampaignDef | null, existing: CampaignDef[] = [], now = Date.now()): CampaignForm {
  const page = (l: Lang): PageForm => ({ title: str(c?.pages[l]?.title), body: str(c?.pages[l]?.body), banner: str(c?.pages[l]?.banner) });
  const rule = (c?.rule ?? { type: 'first_deposit' }) as Record<string, unknown>;
  const tiers = Array.isArray(rule.tiers) ? (rule.tiers as Array<[unknown, unknown]>).map(([a, b]) => `${str(a)} ${str(b)}`).join('\n') : '';
  const used = existing.map((x) => x.id);
  let nextId = 100;
  while (used.includes(nextId) || nextId === 5 || nextId === 13) nextId += 1;
  return {
    id: c ? String(c.id) : String(nextId),
    slug: c?.slug ?? '',
    pages: { zhh: page('zhh'), eng: page('eng'), tha: page('tha') },
    currencies: c?.audience?.currencies ?? [],
    min_vip_level: String(c?.audience?.min_vip_level ?? 1),
    new_member_days: String(c?.audience?.new_member_days ?? 0),
    start: toLocalInput(c?.start_ms ?? now - (now % 60000)),
    end: toLocalInput(c?.end_ms ?? now - (now % 60000) + 30 * 86_400_000),
    repeat: c?.repeat ?? 'once',
    rule: (RULES as readonly string[]).includes(str(rule.type)) ? (rule.type as RuleType) : 'first_deposit',
    percent: str(rule.percent ?? '10'),
    minimum: str(rule.min_deposit ?? rule.min_loss ?? '100'),
    max_bonus: str(rule.max_bonus ?? '100'),
    tiers: tiers || '1000 10\n5000 58',
    turnover_multiple: str(c?.turnover_multiple ?? '1'),
    enabled: c?.enabled ?? true,
  };
}

/** Tiers text as [turnover, bonus] pairs; null when a line is not two amounts. */
export function parseTiers(text: string): Array<[string, string]> | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const out: Array<[string, string]> = [];
  for (const line of lines) {
    const [a, b, ...rest] = line.split(/[\s,;:]+/).filter(Boolean);
    if (a === undefined || b === undefined || rest.length > 0 || !DECIMAL.test(a) || !DECIMAL.test(b)) return null;
    out.push([a, b]);
  }
  return out;
}

/** `isNew`: a new campaign may not take the aid of one in `others` (saving would replace it). */
export function validateCampaign(f: CampaignForm, others: CampaignDef[] = [], isNew = false): Errors {
  const e: Errors = {};
  checkInt(e, 'id', f.id, 1, 1_000_000);
  if (!e.id && (f.id.trim() === '5' || f.id.trim() === '13')) e.id = { key: 'bo.promo.v.reserved_id' };
  else if (!e.id && isNew && others.some((o) => o.id === Number(f.id))) e.id = { key: 'bo.promo.v.id_taken' };
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(f.slug.trim())) e.slug = { key: 'bo.promo.v.slug' };
  else if (others.some((o) => o.slug === f.slug.trim() && String(o.id) !== f.id.trim())) e.slug = { key: 'bo.promo.v.slug_taken' };
  const given = LANGS.filter((l) => f.pages[l].title.trim() || f.pages[l].body.trim() || f.pages[l].banner.trim());
  if (given.length === 0) e['pages.eng.title'] = { key: 'bo.promo.v.one_page' };
  for (const l of given) {
    const p = f.pages[l];
    if (count(p.title) === 0 || count(p.title) > 100) e[`pages.${l}.title`] = { key: 'bo.promo.v.text_max', args: [100] };
    if (p.body.length > 20000) e[`pages.${l}.body`] = { key: 'bo.promo.v.text_max', args: [20000] };
    if (p.banner.length > 300) e[`pages.${l}.banner`] = { key: 'bo.promo.v.text_max', args: [300] };
  }
  checkInt(e, 'min_vip_level', f.min_vip_level, 0, 10);
  checkInt(e, 'new_member_days', f.new_member_days, 0, 3650);
  const start = Date.parse(f.start);
  const end = Date.parse(f.end);
  if (!f.start || Number.isNaN(start)) e.start = { key: 'validation.required' };
  if (!f.end || Number.isNaN(end)) e.end = { key: 'validation.required' };
  else if (!e.start && end <= start) e.end = { key: 'bo.promo.v.period' };
  if (!(REPEATS as readonly string[]).includes(f.repeat)) e.repeat = { key: 'validation.required' };
  if (f.rule === 'turnover') {
    const tiers = parseTiers(f.tiers);
    if (!tiers || tiers.length === 0 || tiers.length > 20) e['rule.tiers'] = { key: 'bo.promo.v.tiers' };
    else if (tiers.some(([a, b]) => Number(a) > 10_000_000 || Number(b) > 10_000_000)) e['rule.tiers'] = { key: 'bo.promo.v.amount', args: [10_000_000] };
  } else {
    checkAmount(e, 'rule.percent', f.percent, f.rule === 'loss_rebate' ? 100 : 1000, true);
    checkAmount(e, 'rule.minimum', f.minimum, 10_000_000);
    checkAmount(e, 'rule.max_bonus', f.max_bonus, 10_000_000);
  }
  checkAmount(e, 'turnover_multiple', f.turnover_multiple, 100);
  return e;
}

export function campaignBody(f: CampaignForm): CampaignDef {
  const pages: CampaignDef['pages'] = {};
  for (const l of LANGS) {
    const p = f.pages[l];
    if (p.title.trim() || p.body.trim() || p.banner.trim()) pages[l] = { title: p.title.trim(), body: p.body, banner: p.banner.trim() };
  }
  const rule: CampaignDef['rule'] = f.rule === 'turnover'
    ? { type: 'turnover', tiers: parseTiers(f.tiers) ?? [] }
    : f.rule === 'loss_rebate'
      ? { type: f.rule, percent: f.percent.trim(), min_loss: f.minimum.trim(), max_bonus: f.max_bonus.trim() }
      : { type: f.rule, percent: f.percent.trim(), min_deposit: f.minimum.trim(), max_bonus: f.max_bonus.trim() };
  return {
    id: Number(f.id),
    slug: f.slug.trim(),
    pages,
    audience: { currencies: f.currencies, min_vip_level: Number(f.min_vip_level), new_member_days: Number(f.new_member_days) },
    start_ms: new Date(f.start).getTime(),
    end_ms: new Date(f.end).getTime(),
    repeat: f.repeat,
    rule,
    turnover_multiple: f.turnover_multiple.trim(),
    enabled: f.enabled,
  };
}

// ------------------------------------------------------------------ tasks

export interface TaskForm { id: string; group: string; kind: string; target: string; cash: string; title: Texts; needcheck: boolean }
export interface TaskSettingsForm { signin: string; turnover_multiple: string; tasks: TaskForm[] }
export interface TaskSettingsDef {
  signin: Array<string | number>; turnover_multiple: string | number;
  tasks: Array<{ id: number; group: string; kind: string; target: string | number; cash: string | number; title: unknown; needcheck?: boolean }>;
}

export function taskSettingsForm(s: TaskSettingsDef): TaskSettingsForm {
  return {
    signin: s.signin.map(String).join(', '),
    turnover_multiple: String(s.turnover_multiple),
    tasks: s.tasks.map((t) => ({
      id: String(t.id), group: t.group, kind: t.kind, target: String(t.target), cash: String(t.cash), title: textsOf(t.title), needcheck: Boolean(t.needcheck),
    })),
  };
}

export const newTask = (tasks: TaskForm[], group: 'daily' | 'novice'): TaskForm => {
  const ids = tasks.map((t) => Number(t.id));
  let id = group === 'daily' ? 1 : 101;
  while (ids.includes(id)) id += 1;
  return { id: String(id), group, kind: 'signin', target: '1', cash: '1', title: { zhh: '', eng: '', tha: '' }, needcheck: false };
};

export function validateTaskSettings(f: TaskSettingsForm): Errors {
  const e: Errors = {};
  const days = f.signin.split(/[\s,]+/).filter(Boolean);
  if (days.length === 0 || days.length > 31 || !days.every((d) => DECIMAL.test(d) && Number(d) <= 100000)) e.signin = { key: 'bo.promo.v.signin' };
  checkAmount(e, 'turnover_multiple', f.turnover_multiple, 100);
  if (f.tasks.length > 50) e.tasks = { key: 'bo.promo.v.too_many', args: [50] };
  const seen = new Set<string>();
  f.tasks.forEach((t, i) => {
    checkInt(e, `tasks.${i}.id`, t.id, 1, 9999);
    if (!e[`tasks.${i}.id`] && seen.has(String(Number(t.id)))) e[`tasks.${i}.id`] = { key: 'bo.promo.v.duplicate_id' };
    seen.add(String(Number(t.id)));
    checkAmount(e, `tasks.${i}.target`, t.target, 100_000_000, true);
    checkAmount(e, `tasks.${i}.cash`, t.cash, 100000);
    checkTexts(e, `tasks.${i}.title`, t.title, 100);
  });
  return e;
}

export function taskSettingsBody(f: TaskSettingsForm): TaskSettingsDef {
  return {
    signin: f.signin.split(/[\s,]+/).filter(Boolean),
    turnover_multiple: f.turnover_multiple.trim(),
    tasks: f.tasks.map((t) => ({
      id: Number(t.id), group: t.group, kind: t.kind, target: t.target.trim(), cash: t.cash.trim(), needcheck: t.needcheck,
      title: { zhh: t.title.zhh.trim(), eng: t.title.eng.trim(), tha: t.title.tha.trim() },
    })),
  };
}

/** A claim can be rejected only with a reason; approval needs none. */
export const validateReview = (approve: boolean, reason: string): Msg | null =>
  !approve && !reason.trim() ? { key: 'bo.v.reason' } : reason.length > 500 ? { key: 'bo.promo.v.text_max', args: [500] } : null;

// ------------------------------------------------------------------ prize board

export interface PrizeForm { slot: number; name: Texts; kind: string; cash: string; weight: string; stock: string }
export interface BoardForm { prizes: PrizeForm[]; period: string; turnover_multiple: string; open: boolean }
export interface BoardDef {
  prizes: Array<{ slot: number; name: unknown; kind: string; cash: string | number; weight: number; stock: number }>;
  period: string; turnover_multiple: string | number; open: boolean;
}

export const boardForm = (b: BoardDef): BoardForm => ({
  prizes: b.prizes.map((p) => ({ slot: p.slot, name: textsOf(p.name), kind: p.kind, cash: String(p.cash ?? '0'), weight: String(p.weight), stock: String(p.stock) })),
  period: b.period,
  turnover_multiple: String(b.turnover_multiple),
  open: b.open,
});

export function validateBoard(f: BoardForm): Errors {
  const e: Errors = {};
  if (f.prizes.length !== 8) e.prizes = { key: 'bo.promo.v.eight' };
  f.prizes.forEach((p, i) => {
    checkTexts(e, `prizes.${i}.name`, p.name, 60);
    checkInt(e, `prizes.${i}.weight`, p.weight, 0, 1_000_000);
    checkInt(e, `prizes.${i}.stock`, p.stock, 0, 1_000_000);
    if (p.kind === 'cash') checkAmount(e, `prizes.${i}.cash`, p.cash, 100000, true);
  });
  if (!e.prizes && f.prizes.every((p) => Number(p.weight) === 0)) e.prizes = { key: 'bo.promo.v.weights' };
  checkAmount(e, 'turnover_multiple', f.turnover_multiple, 100);
  return e;
}

export const boardBody = (f: BoardForm): BoardDef => ({
  prizes: f.prizes.map((p, i) => ({
    slot: i + 1, name: { zhh: p.name.zhh.trim(), eng: p.name.eng.trim(), tha: p.name.tha.trim() }, kind: p.kind,
    cash: p.kind === 'cash' ? p.cash.trim() : '0', weight: Number(p.weight), stock: Number(p.stock),
  })),
  period: f.period,
  turnover_multiple: f.turnover_multiple.trim(),
  open: f.open,
});

/** A prize's chance among the prizes still in stock, in percent with one place. */
export function chances(prizes: Array<{ weight: string; left: number }>): string[] {
  const total = prizes.reduce((s, p) => s + (p.left > 0 ? Number(p.weight) || 0 : 0), 0);
  return prizes.map((p) => (total > 0 && p.left > 0 ? ((100 * (Number(p.weight) || 0)) / total).toFixed(1) : '0.0'));
}

// ------------------------------------------------------------------ goods

export interface GoodsForm { id: string; name: Texts; desc: Texts; img: string; kind: string; points: string; cash: string; stock: string; limit: string; on_sale: boolean }
export interface GoodsDef {
  id: number; name: unknown; desc?: unknown; img?: string; kind: string; points: string | number; cash?: string | number;
  stock: number; limit?: number; on_sale?: boolean; sold?: number; left?: number;
}

export function goodsForm(g: GoodsDef | null, existing: GoodsDef[] = []): GoodsForm {
  const next = existing.reduce((m, x) => Math.max(m, x.id), 0) + 1;
  return {
    id: String(g?.id ?? next), name: textsOf(g?.name ?? ''), desc: textsOf(g?.desc ?? ''), img: g?.img ?? '', kind: g?.kind ?? 'physical',
    points: String(g?.points ?? ''), cash: String(g?.cash ?? '0'), stock: String(g?.stock ?? ''), limit: String(g?.limit ?? 0), on_sale: g?.on_sale ?? true,
  };
}

/** `isNew`: a new item may not take the id of one in `existing` (saving would replace it). */
export function validateGoods(f: GoodsForm, existing: GoodsDef[] = [], isNew = false): Errors {
  const e: Errors = {};
  checkInt(e, 'id', f.id, 1, 1_000_000);
  if (!e.id && isNew && existing.some((g) => g.id === Number(f.id))) e.id = { key: 'bo.promo.v.id_taken' };
  checkTexts(e, 'name', f.name, 60);
  checkTexts(e, 'desc', f.desc, 500, false);
  if (f.img.length > 300) e.img = { key: 'bo.promo.v.text_max', args: [300] };
  checkAmount(e, 'points', f.points, 10_000_000, true);
  if (f.kind === 'cash') checkAmount(e, 'cash', f.cash, 100000, true);
  checkInt(e, 'stock', f.stock, 0, 10_000_000);
  checkInt(e, 'limit', f.limit, 0, 10000);
  return e;
}

export const goodsBody = (f: GoodsForm): GoodsDef => ({
  id: Number(f.id),
  name: { zhh: f.name.zhh.trim(), eng: f.name.eng.trim(), tha: f.name.tha.trim() },
  desc: { zhh: f.desc.zhh.trim(), eng: f.desc.eng.trim(), tha: f.desc.tha.trim() },
  img: f.img.trim(), kind: f.kind, points: f.points.trim(), cash: f.kind === 'cash' ? f.cash.trim() : '0',
  stock: Number(f.stock), limit: Number(f.limit), on_sale: f.on_sale,
});

// ------------------------------------------------------------------ referral settings

export interface ReferralForm { min_deposit: string; gift: string; days: string; turnover_multiple: string }

export const referralForm = (s: Record<string, unknown>): ReferralForm => ({
  min_deposit: str(s.min_deposit), gift: str(s.gift), days: str(s.days), turnover_multiple: str(s.turnover_multiple),
});

export function validateReferral(f: ReferralForm): Errors {
  const e: Errors = {};
  checkAmount(e, 'min_deposit', f.min_deposit, 1_000_000);
  checkAmount(e, 'gift', f.gift, 1_000_000, true);
  checkInt(e, 'days', f.days, 0, 365);
  checkAmount(e, 'turnover_multiple', f.turnover_multiple, 100);
  return e;
}

export const referralBody = (f: ReferralForm) => ({
  min_deposit: f.min_deposit.trim(), gift: f.gift.trim(), days: Number(f.days), turnover_multiple: f.turnover_multiple.trim(),
});

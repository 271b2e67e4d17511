/**
 * Promotion pages (spec 001 sections 2.1, 2.12, 4, 7.2, 7.4): the campaign list
 * (/preferential, /preferentialin), one campaign template for every named campaign page
 * and /promo/{news}, daily and novice tasks with the daily sign-in (/novicetask), the prize
 * draw (/prizedraw, its result in the prize-draw popup), the points shop (/shop) and the
 * referral page (/recommendedgift) with the referral rules and records popups.
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { apiPost } from '../../api';
import { ApiError } from '../../api/http';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { selectLoggedIn } from '../session/selectors';
import { uiActions } from '../shell/uiSlice';
import { drawMessage, recordAction, signinDays, taskButton, type PromoRoute } from './model';
import { useFetched } from '../../shared/useFetched';
import '../seasons/seasons.css';
import './promo.css';

const errorMessage = (err: unknown) =>
  err instanceof ApiError ? err.serverMsg || err.msg : err instanceof Error ? err.message : String(err);

function Popup({ title, children, onClose, testId }: { title: string; children: ReactNode; onClose: () => void; testId: string }) {
  const t = useT();
  return (
    <div className="popup-backdrop" role="dialog" aria-modal="true" data-testid={testId}>
      <div className="popup promo-popup">
        <h3>{title}</h3>
        {children}
        <button type="button" className="btn btn--gold btn--block" onClick={onClose} data-testid="promo-popup-ok">{t('season.ok')}</button>
      </div>
    </div>
  );
}

function LoginHint() {
  const t = useT();
  const dispatch = useAppDispatch();
  return (
    <p className="promo__hint">
      {t('promo.login_hint')}{' '}
      <button type="button" className="btn btn--ghost" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>
        {t('menu.member_login')}
      </button>
    </p>
  );
}

export function PromoRoutePage({ route }: { route: PromoRoute }) {
  switch (route.name) {
    case 'list':
      return <PromoListPage />;
    case 'campaign':
      return <CampaignPage slug={route.slug} />;
    case 'novicetask':
      return <TasksPage />;
    case 'prizedraw':
      return <PrizeDrawPage />;
    case 'shop':
      return <ShopPage />;
    case 'recommendedgift':
      return <RecommendedGiftPage />;
  }
}

interface CampaignView {
  aid: number;
  slug: string;
  title: string;
  body: string;
  banner: string;
  start_ms: number;
  end_ms: number;
  running: boolean;
  rule: { type: string };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function PromoListPage() {
  const t = useT();
  const lang = useAppSelector(selectLanguage);
  const [list, setList] = useState<CampaignView[] | null>(null);
  useEffect(() => {
    apiPost<{ list: CampaignView[] }>('activity/index', { lang })
      .then((d) => setList(d.list))
      .catch(() => setList([]));
  }, [lang]);
  return (
    <div className="promo" data-testid="promo-list">
      <h1>{t('promo.title')}</h1>
      <p className="promo__links">
        <Link href="/novicetask" className="btn btn--ghost">{t('promo.tasks')}</Link>{' '}
        <Link href="/prizedraw" className="btn btn--ghost">{t('promo.draw')}</Link>{' '}
        <Link href="/shop" className="btn btn--ghost">{t('promo.shop')}</Link>{' '}
        <Link href="/recommendedgift" className="btn btn--ghost">{t('promo.referral')}</Link>
      </p>
      {list && list.length === 0 && <p className="promo__empty">{t('promo.none')}</p>}
      <ul className="promo__cards">
        {list?.map((c) => (
          <li key={c.aid} className="promo-card">
            <Link href={`/promo/${c.slug}`} data-testid={`promo-card-${c.slug}`}>
              {c.banner && <img src={c.banner} alt="" />}
              <strong>{c.title}</strong>
              <span>{day(c.start_ms)} - {day(c.end_ms)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

interface Standing { status: number; bonus: string; basis: string; period: string }

function CampaignPage({ slug }: { slug: string }) {
  const t = useT();
  const lang = useAppSelector(selectLanguage);
  const loggedIn = useAppSelector(selectLoggedIn);
  const [campaign, setCampaign] = useState<CampaignView | null | undefined>(undefined);
  const [standing, setStanding] = useState<Standing | null>(null);
  const [popup, setPopup] = useState('');
  const fetchCampaign = useCallback(async () => {
    const index = await apiPost<{ list: CampaignView[] }>('activity/index', { lang });
    const found = index.list.find((c) => c.slug === slug) ?? null;
    const info = found && loggedIn
      ? await apiPost<{ activity: CampaignView; standing: Standing }>('activity/actinfo', { aid: found.aid, lang })
      : null;
    return { found, standing: info?.standing };
  }, [lang, loggedIn, slug]);
  const load = useFetched(fetchCampaign, (r) => {
    setCampaign(r.found);
    if (r.standing) setStanding(r.standing);
  }, () => setCampaign(null));
  if (campaign === undefined) return null;
  if (campaign === null) return <div className="promo"><p className="promo__empty">{t('promo.none')}</p></div>;
  const apply = async () => {
    try {
      const answer = await apiPost<{ reward: { amount: string } }>('activity/apply', { aid: campaign.aid });
      setPopup(t('promo.applied', answer.reward.amount));
      await load();
    } catch (err) {
      setPopup(errorMessage(err));
    }
  };
  const button = taskButton(standing?.status === 2 ? 2 : standing?.status ?? 0);
  return (
    <div className="promo promo-campaign" data-testid="promo-campaign">
      {campaign.banner && <img className="promo-campaign__banner" src={campaign.banner} alt="" />}
      <h1>{campaign.title}</h1>
      <p className="promo__period">{day(campaign.start_ms)} - {day(campaign.end_ms)}</p>
      <div className="promo-campaign__body">{campaign.body}</div>
      <p className="promo__rule">{t(`promo.rule_${campaign.rule.type}`)}</p>
      {!loggedIn && <LoginHint />}
      {standing && (
        <div className="promo-campaign__standing">
          <p>{t('promo.standing', standing.basis, standing.bonus)}</p>
          <button type="button" className={`btn ${button.enabled ? 'btn--gold' : 'btn--ghost'}`} disabled={!button.enabled}
            data-testid="promo-apply" onClick={() => void apply()}>
            {standing.status === 1 ? t('promo.apply') : t(button.key)}
          </button>
        </div>
      )}
      {popup && <Popup title={campaign.title} onClose={() => setPopup('')} testId="promo-message-popup"><p>{popup}</p></Popup>}
    </div>
  );
}

interface SignState { signed_today: boolean; streak: number; rewards: string[]; days: string[] }
interface TaskView {
  id: number;
  group: 'daily' | 'novice';
  taskdesc: string;
  taskvalue: string;
  nowvalue: string;
  cash: string;
  status: number;
  percent: number;
}

function TasksPage() {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const lang = useAppSelector(selectLanguage);
  const [data, setData] = useState<{ list: TaskView[]; signin: SignState } | null>(null);
  const [popup, setPopup] = useState('');
  const [busy, setBusy] = useState(false);
  const fetchTasks = useMemo(
    () => (loggedIn ? () => apiPost<{ list: TaskView[]; signin: SignState }>('activity/gettasklist', { lang }) : null),
    [loggedIn, lang],
  );
  const load = useFetched(fetchTasks, setData, (err) => setPopup(errorMessage(err)));
  if (!loggedIn) return <div className="promo"><h1>{t('promo.tasks')}</h1><LoginHint /></div>;
  const signIn = async () => {
    setBusy(true);
    try {
      const d = await apiPost<{ streak: number; reward: string }>('activity/signin', {});
      setPopup(t('promo.signed', String(d.streak), d.reward));
      await load();
    } catch (err) {
      setPopup(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const claim = async (task: TaskView) => {
    try {
      const d = await apiPost<{ needcheck: number; cash: string }>('activity/gettaskbonus', { id: task.id });
      setPopup(d.needcheck === 0 ? t('season.claim_paid', d.cash) : t('season.claim_review'));
      await load();
    } catch (err) {
      setPopup(errorMessage(err));
    }
  };
  const sign = data?.signin;
  const group = (g: 'daily' | 'novice') => data?.list.filter((task) => task.group === g) ?? [];
  return (
    <div className="promo" data-testid="promo-tasks">
      <h1>{t('promo.tasks')}</h1>
      {sign && (
        <section className="promo-sign" data-testid="promo-signin">
          <h2>{t('promo.signin_title')}</h2>
          <p>{t('promo.streak', String(sign.streak))}</p>
          <ol className="promo-sign__days">
            {signinDays(sign.rewards, sign.streak, sign.signed_today).map((d) => (
              <li key={d.day} className={d.done ? 'is-done' : d.today ? 'is-today' : ''}>
                <span>{t('promo.day_n', String(d.day))}</span>
                <strong>{d.reward}</strong>
              </li>
            ))}
          </ol>
          <button type="button" className={`btn ${sign.signed_today ? 'btn--ghost' : 'btn--gold'} btn--block`}
            disabled={sign.signed_today || busy} data-testid="promo-signin-button" onClick={() => void signIn()}>
            {sign.signed_today ? t('promo.signed_today') : t('promo.signin')}
          </button>
        </section>
      )}
      {(['daily', 'novice'] as const).map((g) => (
        <section key={g} className="promo-tasks" aria-label={t(`promo.${g}`)}>
          <h2>{t(`promo.${g}`)}</h2>
          <ul>
            {group(g).map((task) => {
              const button = taskButton(task.status);
              return (
                <li key={task.id} className="season-task" data-testid={`promo-task-${task.id}`}>
                  <div className="season-task__head">
                    <span className="season-task__desc">{task.taskdesc}</span>
                    <span className="season-task__cash">{task.cash}</span>
                  </div>
                  <div className="season-task__bar" role="progressbar" aria-valuenow={task.percent} aria-valuemin={0} aria-valuemax={100}>
                    <div style={{ width: `${task.percent}%` }} />
                  </div>
                  <div className="season-task__foot">
                    <span>{task.nowvalue} / {task.taskvalue}</span>
                    <button type="button" className={`btn ${button.enabled ? 'btn--gold' : 'btn--ghost'}`} disabled={!button.enabled}
                      data-testid={`promo-claim-${task.id}`} onClick={() => void claim(task)}>
                      {t(button.key)}
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
      {popup && <Popup title={t('promo.tasks')} onClose={() => setPopup('')} testId="promo-message-popup"><p>{popup}</p></Popup>}
    </div>
  );
}

interface Prize { slot: number; name: string; kind: string; cash: string; left: number }
interface Board { prizes: Prize[]; actRand: string; open: boolean; drawn: { jiangpin: string } | null }

function PrizeDrawPage() {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const lang = useAppSelector(selectLanguage);
  const [board, setBoard] = useState<Board | null>(null);
  const [result, setResult] = useState('');
  const [busy, setBusy] = useState(false);
  const fetchBoard = useMemo(
    () => (loggedIn ? () => apiPost<{ board: Board }>('activity/actinfo', { aid: 5, lang }) : null),
    [loggedIn, lang],
  );
  const load = useFetched(fetchBoard, (d) => setBoard(d.board), (err) => setResult(errorMessage(err)));
  if (!loggedIn) return <div className="promo"><h1>{t('promo.draw')}</h1><LoginHint /></div>;
  const draw = async () => {
    if (!board) return;
    setBusy(true);
    try {
      const d = await apiPost<{ jiangpin: string }>('activity/main', { aid: 5, actRand: board.actRand, lang });
      setResult(t('promo.draw_won', d.jiangpin));
    } catch (err) {
      setResult(err instanceof ApiError ? drawMessage(err.status, err.serverMsg || err.msg, t) : errorMessage(err));
    } finally {
      setBusy(false);
      await load();
    }
  };
  return (
    <div className="promo" data-testid="promo-draw">
      <h1>{t('promo.draw')}</h1>
      <p>{t('promo.draw_rules')}</p>
      <ul className="promo-board">
        {board?.prizes.map((p) => (
          <li key={p.slot} className={`promo-board__prize${p.left <= 0 ? ' is-gone' : ''}`} data-testid={`promo-prize-${p.slot}`}>
            <strong>{p.name}</strong>
            <span>{t('promo.left', String(p.left))}</span>
          </li>
        ))}
      </ul>
      {board?.drawn ? (
        <p className="promo__done" data-testid="promo-drawn">{t('promo.draw_done', board.drawn.jiangpin)}</p>
      ) : (
        <button type="button" className="btn btn--gold btn--block" disabled={!board || busy} data-testid="promo-draw-button"
          onClick={() => void draw()}>
          {t('promo.draw_start')}
        </button>
      )}
      {result && (
        <Popup title={t('promo.draw')} onClose={() => setResult('')} testId="promo-draw-popup">
          <p data-testid="promo-draw-result">{result}</p>
        </Popup>
      )}
    </div>
  );
}

interface Goods { id: number; name: string; desc: string; img: string; kind: string; points: string; left: number; limit: number }

function ShopPage() {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const lang = useAppSelector(selectLanguage);
  const [data, setData] = useState<{ list: Goods[]; points: string } | null>(null);
  const [popup, setPopup] = useState('');
  const fetchGoods = useMemo(
    () => (loggedIn ? () => apiPost<{ list: Goods[]; points: string }>('shop/goodslist', { lang }) : null),
    [loggedIn, lang],
  );
  const load = useFetched(fetchGoods, setData, (err) => setPopup(errorMessage(err)));
  if (!loggedIn) return <div className="promo"><h1>{t('promo.shop')}</h1><LoginHint /></div>;
  const buy = async (g: Goods) => {
    try {
      const d = await apiPost<{ points: string }>('shop/buy', { id: g.id, num: 1, lang });
      setPopup(t('promo.bought', g.name, d.points));
      await load();
    } catch (err) {
      setPopup(errorMessage(err));
    }
  };
  return (
    <div className="promo" data-testid="promo-shop">
      <h1>{t('promo.shop')}</h1>
      <p className="promo-shop__points" data-testid="promo-points">{t('promo.points', data?.points ?? '0')}</p>
      <ul className="promo-shop">
        {data?.list.map((g) => (
          <li key={g.id} className="promo-goods" data-testid={`promo-goods-${g.id}`}>
            <strong>{g.name}</strong>
            {g.desc && <span className="promo-goods__desc" data-testid={`promo-goods-desc-${g.id}`}>{g.desc}</span>}
            <span>{t('promo.price', g.points)}</span>
            <span>{t('promo.left', String(g.left))}{g.limit > 0 ? ` · ${t('promo.limit', String(g.limit))}` : ''}</span>
            {g.kind === 'physical' && <small>{t('promo.ships')}</small>}
            <button type="button" className="btn btn--gold" disabled={g.left <= 0} data-testid={`promo-buy-${g.id}`}
              onClick={() => void buy(g)}>
              {t('promo.buy')}
            </button>
          </li>
        ))}
      </ul>
      {popup && <Popup title={t('promo.shop')} onClose={() => setPopup('')} testId="promo-message-popup"><p>{popup}</p></Popup>}
    </div>
  );
}

interface Invite {
  code: string;
  count: number;
  total_bonus: string;
  list: { username: string; created: string; action: number; bonus: string }[];
  rules: { min_deposit: string; gift: string; days: number; turnover_multiple: string };
}

function RecommendedGiftPage() {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const [invite, setInvite] = useState<Invite | null>(null);
  const [link, setLink] = useState('');
  const [popup, setPopup] = useState<'rules' | 'records' | null>(null);
  useEffect(() => {
    if (!loggedIn) return;
    apiPost<Invite>('user/invite', {}).then(setInvite).catch(() => setInvite(null));
    apiPost<{ link: string }>('user/invitetemplate', {})
      .then((d) => setLink(window.location.origin + d.link))
      .catch(() => setLink(''));
  }, [loggedIn]);
  if (!loggedIn) return <div className="promo"><h1>{t('promo.referral')}</h1><LoginHint /></div>;
  const rules = invite?.rules;
  return (
    <div className="promo" data-testid="promo-referral">
      <h1>{t('promo.referral')}</h1>
      {rules && <p className="promo-referral__lead">{t('promo.referral_lead', rules.min_deposit, rules.gift)}</p>}
      <p className="promo-referral__code">{t('promo.invite_code')} <strong data-testid="promo-invite-code">{invite?.code}</strong></p>
      {link && <p className="promo-referral__link"><input readOnly value={link} aria-label={t('promo.invite_link')} /></p>}
      <p>{t('promo.referral_total', String(invite?.count ?? 0), invite?.total_bonus ?? '0')}</p>
      <p className="promo__links">
        <button type="button" className="btn btn--ghost" data-testid="promo-rules" onClick={() => setPopup('rules')}>{t('promo.rules')}</button>{' '}
        <button type="button" className="btn btn--ghost" data-testid="promo-records" onClick={() => setPopup('records')}>{t('promo.records')}</button>
      </p>
      {popup === 'rules' && rules && (
        <Popup title={t('promo.rules')} onClose={() => setPopup(null)} testId="promo-rules-popup">
          <ol className="promo-rules">
            <li>{t('promo.rule_1', rules.min_deposit)}</li>
            <li>{t('promo.rule_2', rules.gift, String(rules.days))}</li>
            <li>{t('promo.rule_3', rules.turnover_multiple)}</li>
            <li>{t('promo.rule_4')}</li>
          </ol>
        </Popup>
      )}
      {popup === 'records' && (
        <Popup title={t('promo.records')} onClose={() => setPopup(null)} testId="promo-records-popup">
          {invite && invite.list.length > 0 ? (
            <table className="promo-records">
              <thead><tr><th>{t('promo.col_user')}</th><th>{t('promo.col_time')}</th><th>{t('promo.col_action')}</th><th>{t('promo.col_bonus')}</th></tr></thead>
              <tbody>
                {invite.list.map((r, i) => (
                  <tr key={i}><td>{r.username}</td><td>{r.created}</td><td>{t(recordAction(r.action))}</td><td>{r.bonus}</td></tr>
                ))}
              </tbody>
            </table>
          ) : <p>{t('empty.no_data')}</p>}
        </Popup>
      )}
    </div>
  );
}

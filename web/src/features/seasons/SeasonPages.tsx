/**
 * Season pages (spec 001 sections 2.1, 2.9, 2.10): one template for every named season
 * page (its season's data), the season introduction (an off-season message between
 * seasons), the task list with progress bars and claim buttons, the reward popups
 * (S1Recive / SeasonReward after a claim; RankRewardDetails for the rank reward, whose
 * physical prize is claimed through S1ReciveOne (the shirt size) and S1ReciveTwo (the
 * delivery address); RankRewardDetailsS5, the reward's details), and the home-team chooser.
 */
import { useCallback, useEffect, useState } from 'react';
import { apiPost } from '../../api';
import { ApiError } from '../../api/http';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { balanceActions } from '../balance/balanceSlice';
import { Link } from '../../app/router';
import type { Translate } from '../i18n/translate';
import { useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { selectLoggedIn } from '../session/selectors';
import {
  ADDRESS_FIELDS, addressComplete, rankClaimSteps, seasonOfPath, SHIRT_SIZES, taskButton,
  type AddressForm, type ClaimStep, type SeasonInfo, type TaskView, type RankInfo,
} from './model';
import { seasonNotStarted, seasonRefusal } from './pageRules';
import { useFetched } from '../../shared/useFetched';
import './seasons.css';

/**
 * A refusal as the member reads it: the season's own texts (seasonRefusal), then the error
 * catalogue, then the server's text (codes whose msg is meant for the member, unknown codes).
 */
function errorMessage(t: Translate, err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  for (const message of [seasonRefusal(err.status, err.serverMsg), err.i18n]) {
    if (!message?.key || message.key === 'error.unknown') continue;
    const text = t(message.key, ...message.args);
    if (text !== message.key) return text;
  }
  return err.serverMsg || err.msg;
}

interface TaskList {
  season: SeasonInfo;
  list: TaskView[];
  activedays: number;
  needdays: number;
}

export function SeasonPage({ path }: { path: string }) {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const dispatch = useAppDispatch();
  const { seasonId, report } = seasonOfPath(path);
  const [info, setInfo] = useState<SeasonInfo | null>(null);
  const [tasks, setTasks] = useState<TaskList | null>(null);
  const [error, setError] = useState('');
  const [popup, setPopup] = useState<{ title: string; text: string } | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  // task texts (taskdesc, bonusname) are given by the server in the page's language
  const lang = useAppSelector(selectLanguage);

  // the season, then the member's tasks; a failure of the second still shows the first.
  // A season that has not started has no tasks yet: its page says so and asks for none.
  const fetchSeason = useCallback(async () => {
    const season = await apiPost<SeasonInfo>('vipsystem/seasoninfo');
    if (seasonNotStarted(seasonId, season)) return { season, list: null, failure: undefined };
    try {
      const list = loggedIn
        ? await apiPost<TaskList>('vipsystem/seasontaskbonusinfo', seasonId ? { seasonid: seasonId, lang } : { lang })
        : undefined;
      return { season, list, failure: undefined };
    } catch (failure) {
      return { season, list: undefined, failure };
    }
  }, [loggedIn, seasonId, lang]);
  const load = useFetched(fetchSeason, (r) => {
    setInfo(r.season);
    if (r.list !== undefined) setTasks(r.list);
    setError(r.failure === undefined ? '' : errorMessage(t, r.failure));
  }, (err) => setError(errorMessage(t, err)));

  const claim = async (task: TaskView) => {
    setBusy(task.id);
    try {
      const answer = await apiPost<{ needcheck: number; cash: string }>('vipsystem/getseasontaskbonus', { id: task.id });
      if (answer.needcheck === 0) dispatch(balanceActions.refreshRequested());
      setPopup({
        title: t('season.reward_title'),
        text: answer.needcheck === 0 ? t('season.claim_paid', answer.cash) : t('season.claim_review'),
      });
      await load();
    } catch (err) {
      setPopup({ title: t('season.reward_title'), text: errorMessage(t, err) });
    } finally {
      setBusy(null);
    }
  };

  const running = info && info.status === 'season';
  const notStarted = seasonNotStarted(seasonId, info);
  const next = info?.next;
  return (
    <div className="season" data-testid="season-page">
      <section className="season__intro" data-testid="season-intro">
        {notStarted ? (
          <>
            <h1 data-testid="season-not-started">{t('season.not_started', String(seasonId))}</h1>
            {next && next.seasonid === seasonId && next.starttime && <p>{t('season.starts', next.starttime)}</p>}
          </>
        ) : running ? (
          <>
            <h1>{info.name}</h1>
            <p>{t('season.runs', info.starttime ?? '', info.endtime ?? '')}</p>
            <p className="season__left">{t('season.days_left', String(info.daysleft ?? 0))}</p>
          </>
        ) : info ? (
          <>
            <h1>{t('season.off_title')}</h1>
            <p data-testid="season-off">{t('season.off_text', info.next?.starttime ?? '-')}</p>
          </>
        ) : null}
        {report && !notStarted && <p className="season__report">{t('season.report', String(seasonId))}</p>}
      </section>
      {error && <p className="season__error" role="alert">{error}</p>}
      {!loggedIn && !notStarted && <p className="season__hint">{t('season.login_hint')}</p>}
      {tasks && !notStarted && (
        <section className="season__tasks" aria-label={t('season.tasks')}>
          <h2>{t('season.tasks')}</h2>
          <p className="season__active">{t('season.active_days', String(tasks.activedays), String(Math.max(0, tasks.needdays - 1)))}</p>
          <ul>
            {tasks.list.map((task) => {
              const button = taskButton(task.status);
              return (
                <li key={task.id} className="season-task" data-testid={`season-task-${task.id}`}>
                  <div className="season-task__head">
                    <span className="season-task__desc">{task.taskdesc || t(`season.type_${task.tasktype}`)}</span>
                    <span className="season-task__cash">{task.bonusname || task.cash}</span>
                  </div>
                  <div className="season-task__bar" role="progressbar" aria-valuenow={task.percent} aria-valuemin={0} aria-valuemax={100}>
                    <div style={{ width: `${task.percent}%` }} />
                  </div>
                  <div className="season-task__foot">
                    <span>{task.nowvalue} / {task.taskvalue}</span>
                    <button type="button" className={`btn ${button.enabled ? 'btn--gold' : 'btn--ghost'}`}
                      disabled={!button.enabled || busy === task.id} data-testid={`season-claim-${task.id}`}
                      onClick={() => void claim(task)}>
                      {t(button.key)}
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      {loggedIn && info && !notStarted && <RankReward seasonId={seasonId ?? 3} onMessage={(text) => setPopup({ title: t('season.rank_title'), text })} />}
      {loggedIn && <p><Link href="/hometeam" className="btn btn--ghost season__link">{t('hometeam.title')}</Link></p>}
      {popup && (
        <div className="popup-backdrop" role="dialog" aria-modal="true" data-testid="season-reward-popup">
          <div className="popup season-popup">
            <h3>{popup.title}</h3>
            <p>{popup.text}</p>
            <button type="button" className="btn btn--gold btn--block" onClick={() => setPopup(null)}>{t('season.ok')}</button>
          </div>
        </div>
      )}
    </div>
  );
}

const EMPTY_ADDRESS: AddressForm = { consignee: '', phone: '', province: '', city: '', district: '', address: '' };

/**
 * RankRewardDetails: the rank reward and its claim. A physical prize goes through
 * S1ReciveOne (the prize, and the shirt size when it holds a shirt) and S1ReciveTwo (the
 * delivery address, saved with `user/setuseraddress`); RankRewardDetailsS5 shows the
 * reward's details.
 */
function RankReward({ seasonId, onMessage }: { seasonId: number; onMessage: (text: string) => void }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const [info, setInfo] = useState<RankInfo | null>(null);
  const [size, setSize] = useState('');
  const [address, setAddress] = useState<AddressForm>(EMPTY_ADDRESS);
  const [step, setStep] = useState<ClaimStep | null>(null);
  const [details, setDetails] = useState(false);
  const [busy, setBusy] = useState(false);
  // the prize (jiangpin) is named by the server in the page's language
  const lang = useAppSelector(selectLanguage);
  const fetchRank = useCallback(async () => {
    const data = await apiPost<{ aUserActInfo: RankInfo }>('activity/actinfo', { aid: 13, sid: seasonId, lang });
    const saved = await apiPost<Partial<AddressForm> | null>('user/useraddress');
    return { rank: data.aUserActInfo, saved };
  }, [seasonId, lang]);
  const load = useFetched(fetchRank, (r) => {
    setInfo(r.rank);
    setAddress({ ...EMPTY_ADDRESS, ...(r.saved ?? {}) });
  }, () => setInfo(null));
  if (!info || info.userrank === 0) return null;
  const claim = async () => {
    setBusy(true);
    try {
      if (rankClaimSteps(info).length > 0) await apiPost('user/setuseraddress', address);
      const data = await apiPost<{ jiangpin: string }>('activity/main', { aid: 13, sid: seasonId, actRand: info.actRand, size: size || undefined, lang });
      setStep(null);
      // the envelope is in the balance now: the header shows it without waiting for its poll
      dispatch(balanceActions.refreshRequested());
      onMessage(t('season.rank_paid', data.jiangpin));
      await load();
    } catch (err) {
      setStep(null);
      onMessage(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  const start = () => {
    const steps = rankClaimSteps(info);
    if (steps.length === 0) void claim();
    else setStep(steps[0]!);
  };
  const button = taskButton(info.status);
  return (
    <section className="season__rank" data-testid="season-rank">
      <h2>{t('season.rank_title')}</h2>
      <p>{t('season.rank_line', String(info.userrank), info.jiangpin || '-')}</p>
      {info.contact_support && <p>{t('season.rank_support')}</p>}
      <div className="season__rank-actions">
        <button type="button" className="btn btn--ghost" data-testid="season-rank-details" onClick={() => setDetails(true)}>
          {t('season.details')}
        </button>
        <button type="button" className={`btn ${button.enabled ? 'btn--gold' : 'btn--ghost'}`} data-testid="season-rank-claim"
          disabled={!button.enabled || busy} onClick={start}>
          {t(button.key)}
        </button>
      </div>
      {step === 'one' && (
        <div className="popup-backdrop" role="dialog" aria-modal="true" data-testid="season-recive-one">
          <div className="popup season-popup">
            <h3>{t('season.recive_one_title')}</h3>
            <p>{info.jiangpin}</p>
            {info.clothes === 1 && (
              <label className="season__size">
                {t('season.shirt_size')}
                <select value={size} onChange={(e) => setSize(e.target.value)} data-testid="season-size">
                  <option value="">-</option>
                  {SHIRT_SIZES.map((s) => <option key={s} value={s}>{s}</option>)}
                </select>
              </label>
            )}
            <div className="season-popup__actions">
              <button type="button" className="btn btn--ghost" onClick={() => setStep(null)}>{t('season.cancel')}</button>
              <button type="button" className="btn btn--gold" data-testid="season-recive-next"
                disabled={info.clothes === 1 && !size} onClick={() => setStep('two')}>
                {t('season.next')}
              </button>
            </div>
          </div>
        </div>
      )}
      {step === 'two' && (
        <div className="popup-backdrop" role="dialog" aria-modal="true" data-testid="season-recive-two">
          <div className="popup season-popup season-popup--tall">
            <h3>{t('season.recive_two_title')}</h3>
            {ADDRESS_FIELDS.map((field) => (
              <label key={field} className="season__address-field">
                <span>{t(`season.addr_${field}`)}</span>
                <input value={address[field]} maxLength={100} data-testid={`season-addr-${field}`}
                  onChange={(e) => setAddress((a) => ({ ...a, [field]: e.target.value }))} />
              </label>
            ))}
            <div className="season-popup__actions">
              <button type="button" className="btn btn--ghost" onClick={() => setStep('one')}>{t('season.back')}</button>
              <button type="button" className="btn btn--gold" data-testid="season-recive-confirm"
                disabled={!addressComplete(address) || busy} onClick={() => void claim()}>
                {t('season.confirm')}
              </button>
            </div>
          </div>
        </div>
      )}
      {details && (
        <div className="popup-backdrop" role="dialog" aria-modal="true" data-testid="season-rank-details-s5">
          <div className="popup season-popup">
            <h3>{t('season.details_title')}</h3>
            <dl className="season__details">
              <dt>{t('season.details_rank')}</dt><dd>{info.userrank}</dd>
              <dt>{t('season.details_prize')}</dt><dd>{info.jiangpin || '-'}</dd>
              <dt>{t('season.details_cash')}</dt><dd>{info.cash || '-'}</dd>
              {info.clothes === 1 && (<><dt>{t('season.details_shirt')}</dt><dd>{size || t('season.details_on_claim')}</dd></>)}
              {info.mouse === 1 && (<><dt>{t('season.details_power_bank')}</dt><dd>{t('season.details_included')}</dd></>)}
              <dt>{t('season.details_status')}</dt><dd>{t(info.status === 1 ? 'season.status_claimable' : button.key)}</dd>
            </dl>
            <button type="button" className="btn btn--gold btn--block" onClick={() => setDetails(false)}>{t('season.ok')}</button>
          </div>
        </div>
      )}
    </section>
  );
}

interface Competition { id: number; name: string }
interface Team { id: number; name: string; sportid: number }
interface MyTeams {
  myfootballstatus: number;
  mybasketballstatus: number;
  myfootball: Team | null;
  mybasketball: Team | null;
}

/** The home-team chooser: sport slots, league list, team list, search, confirm, cancel. */
export function HomeTeamPage() {
  const t = useT();
  const [mine, setMine] = useState<MyTeams | null>(null);
  const [sport, setSport] = useState<1 | 3>(1);
  const [leagues, setLeagues] = useState<Competition[]>([]);
  const [teams, setTeams] = useState<Team[]>([]);
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState<Team | null>(null);
  const [message, setMessage] = useState('');

  const fetchMine = useCallback(() => apiPost<MyTeams>('user/myteam'), []);
  const loadMine = useFetched(fetchMine, setMine, (err) => setMessage(errorMessage(t, err)));
  // another sport: its leagues; the teams and the choice of the previous one go
  const chooseSport = (s: 1 | 3) => {
    if (s === sport) return;
    setSport(s);
    setTeams([]);
    setChosen(null);
  };
  useEffect(() => {
    apiPost<{ list: Competition[] }>('user/getcompetitions', { sportid: sport })
      .then((d) => setLeagues(d.list))
      .catch((err) => setMessage(errorMessage(t, err)));
  }, [sport, t]);

  const pickLeague = async (cid: number) => {
    try {
      setTeams((await apiPost<{ list: Team[] }>('user/getteams', { cid, sportid: sport })).list);
    } catch (err) {
      setMessage(errorMessage(t, err));
    }
  };
  const find = async () => {
    if (!search.trim()) return;
    try {
      setTeams((await apiPost<{ list: Team[] }>('user/getteams', { name: search.trim(), sportid: sport })).list);
    } catch (err) {
      setMessage(errorMessage(t, err));
    }
  };
  const confirm = async () => {
    if (!chosen) return;
    try {
      await apiPost('activity/chooseteam', { teamid: chosen.id, sportid: sport });
      setChosen(null);
      setMessage(t('hometeam.saved'));
      await loadMine();
    } catch (err) {
      setMessage(errorMessage(t, err));
    }
  };
  const slot = (s: 1 | 3) => (s === 1 ? mine?.myfootball : mine?.mybasketball);
  const mayChoose = sport === 1 ? mine?.myfootballstatus === 1 : mine?.mybasketballstatus === 1;
  return (
    <div className="hometeam" data-testid="hometeam-page">
      <h1>{t('hometeam.title')}</h1>
      <div className="hometeam__slots">
        {([1, 3] as const).map((s) => (
          <button key={s} type="button" className={`hometeam__slot${sport === s ? ' is-active' : ''}`} onClick={() => chooseSport(s)}>
            <span>{t(s === 1 ? 'hometeam.football' : 'hometeam.basketball')}</span>
            <strong>{slot(s)?.name ?? t('hometeam.none')}</strong>
          </button>
        ))}
      </div>
      {!mayChoose && <p className="hometeam__locked">{t('hometeam.locked')}</p>}
      <div className="hometeam__search">
        <input value={search} maxLength={50} placeholder={t('hometeam.search')} onChange={(e) => setSearch(e.target.value)} />
        <button type="button" className="btn btn--ghost season__link" onClick={() => void find()}>{t('hometeam.search')}</button>
      </div>
      <div className="hometeam__lists">
        <ul className="hometeam__leagues" aria-label={t('hometeam.leagues')}>
          {leagues.map((l) => <li key={l.id}><button type="button" onClick={() => void pickLeague(l.id)}>{l.name}</button></li>)}
        </ul>
        <ul className="hometeam__teams" aria-label={t('hometeam.teams')}>
          {teams.map((team) => (
            <li key={team.id}>
              <button type="button" className={chosen?.id === team.id ? 'is-active' : ''} onClick={() => setChosen(team)}>{team.name}</button>
            </li>
          ))}
        </ul>
      </div>
      {chosen && (
        <div className="popup-backdrop" role="dialog" aria-modal="true">
          <div className="popup season-popup">
            <p>{t('hometeam.confirm', chosen.name)}</p>
            <button type="button" className="btn btn--gold btn--block" disabled={!mayChoose} onClick={() => void confirm()}>{t('hometeam.ok')}</button>
            <button type="button" className="btn btn--ghost btn--block" onClick={() => setChosen(null)}>{t('hometeam.cancel')}</button>
          </div>
        </div>
      )}
      {message && <p className="hometeam__message" role="status">{message}</p>}
    </div>
  );
}

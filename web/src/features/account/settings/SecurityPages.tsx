/**
 * The security pages of spec 001 section 2.1 (docs/client.md "Security pages"):
 * /setting/chosewayset (how to prove who you are), /setting/changeloginsteps/{1|2|3}
 * (a new login password after a code to the bound phone or e-mail, or the security
 * answer), /setting/safecertificate/{1|2} (the check before changing the bound phone
 * or e-mail), /setting/untiedphone and /setting/untiedmail, /setting/emailadress and
 * /setting/mybirth. Every call goes through the forms saga (account/sagas.ts).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { Link, navigate } from '../../../app/router';
import type { CertifiedItem, LoginWay } from '../../../app/routes';
import { CodeField, ErrorText, PasswordField, SubmitButton, TextField } from '../../../components/form';
import * as rules from '../../../shared/validation';
import { errorText, useT } from '../../i18n/useT';
import { selectLoggedIn, selectProfile } from '../../session/selectors';
import { sessionActions } from '../../session/sessionSlice';
import { DateField } from '../RegisterPopup';
import { formsActions } from '../formsSlice';
import { useFormCall, useSendCode } from '../useSendCode';
import { MemberPage, Outcome } from './SettingsPages';
import {
  CERTIFIED_PAGE, SAFETY_TYPE, VALTYPE, birthBounds, birthEditable, birthRule, certificateHref, certificateId, stepsHref,
  unbindBlocked, waysFor,
} from './security';
import './security.css';

/** A form call owned by the page: it outlives the step that made it (the check's step unmounts after it). */
type FormCall = ReturnType<typeof useFormCall>;

/** Loads the profile (masked contacts, the question) once a member opens the page. */
function useProfile() {
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  useEffect(() => {
    if (loggedIn) dispatch(sessionActions.profileRequested());
  }, [dispatch, loggedIn]);
  return useAppSelector(selectProfile);
}

const WAY_KEYS: Record<LoginWay, { label: string; missing: string; fix: string }> = {
  phone: { label: 'security.way_phone', missing: 'security.no_phone', fix: '/setting/phonebind' },
  email: { label: 'security.way_email', missing: 'security.no_email', fix: '/setting/mailbind' },
  question: { label: 'security.way_question', missing: 'security.no_question', fix: '/setting/setsecurity' },
};

/** /setting/chosewayset: the ways the member can prove who they are, each to the step-by-step change. */
export function ChoseWaySet() {
  const t = useT();
  const profile = useProfile();
  return (
    <MemberPage title={t('security.chose_way')}>
      <p className="form__note">{t('security.chose_way_note')}</p>
      <ul className="way-list" data-testid="ways">
        {waysFor(profile).map(({ way, available, shows }) => (
          <li key={way} className={available ? 'way-list__item' : 'way-list__item is-off'} data-testid={`way-${way}`}>
            {available ? (
              <Link href={stepsHref(way)} className="way-list__link">
                <span><b>{t(WAY_KEYS[way].label)}</b><small>{shows}</small></span><span aria-hidden="true">›</span>
              </Link>
            ) : (
              <span className="way-list__link">
                <span><b>{t(WAY_KEYS[way].label)}</b><small>{t(WAY_KEYS[way].missing)}</small></span>
                <Link href={WAY_KEYS[way].fix} className="way-list__fix">{t('security.set_up')}</Link>
              </span>
            )}
          </li>
        ))}
      </ul>
      <Link href="/setting/changelogin" className="form__link">{t('security.remember_old')}</Link>
    </MemberPage>
  );
}

/** The three steps of a change: verify, the new value, done. */
function Steps({ page, labels }: { page: number; labels: string[] }) {
  return (
    <ol className="steps" data-testid="steps" data-step={page}>
      {labels.map((label, i) => <li key={label} className={i <= page ? 'steps__item is-done' : 'steps__item'}>{label}</li>)}
    </ol>
  );
}

/**
 * The identity check of a way: a code sent to the bound phone or e-mail (checkcode type 8),
 * or the security answer (questioncheck); either answers the uid the next call carries.
 */
function VerifyIdentity({ way, checker, submitLabel }: { way: LoginWay; checker: FormCall; submitLabel: string }) {
  const t = useT();
  const profile = useAppSelector(selectProfile);
  const sender = useSendCode(`sendcode:verify-${way}`);
  const [code, setCode] = useState('');
  const [answer, setAnswer] = useState('');
  const [touched, setTouched] = useState(false);
  const state = waysFor(profile).find((w) => w.way === way)!;
  const username = profile?.username ?? '';
  const valtype = VALTYPE[way];
  if (!profile) return <div className="page-loading" aria-busy="true" />;
  if (!state.available) {
    return (
      <div className="form" data-testid="way-missing">
        <p className="form__note">{t(WAY_KEYS[way].missing)}</p>
        <Link href={WAY_KEYS[way].fix} className="btn btn--gold btn--block">{t('security.set_up')}</Link>
        <Link href="/setting/chosewayset" className="form__link">{t('security.other_way')}</Link>
      </div>
    );
  }
  const error = way === 'question' ? (answer.trim() ? null : { key: 'validation.required', args: [] }) : rules.verifyCode(code, '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (error || checker.pending) return;
    if (way === 'question') checker.submit({ path: 'user/questioncheck', params: { question: state.shows, answer: answer.trim() } });
    else checker.submit({ path: 'checkcode', params: { uid: sender.uid, type: SAFETY_TYPE, valtype, checkCode: code, username } });
  };
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="verify-identity">
      {way === 'question' ? (
        <>
          <dl className="info-list"><div className="info-list__row"><dt>{t('settings.question')}</dt><dd data-testid="question">{state.shows}</dd></div></dl>
          <TextField name="answer" label={t('settings.answer')} value={answer} onChange={setAnswer} maxLength={100}
            onBlur={() => setTouched(true)} error={touched ? error : null} autoComplete="off" />
        </>
      ) : (
        <>
          <p className="form__note">{t('security.code_to', state.shows)}</p>
          <CodeField name="code" label={t('form.code')} value={code} onChange={setCode} error={touched ? error : null}
            onBlur={() => setTouched(true)} onSend={() => sender.send({ type: SAFETY_TYPE, valtype, username })}
            sending={sender.sending} running={sender.running} remaining={sender.remaining} />
          {sender.error && <ErrorText error={errorText(t, sender.error)} />}
        </>
      )}
      {checker.error && <ErrorText error={errorText(t, checker.error)} testId="settings-error" />}
      <SubmitButton pending={checker.pending} testId="verify-submit">{submitLabel}</SubmitButton>
    </form>
  );
}

const uidOf = (data: unknown) => (data as { uid?: string } | null)?.uid ?? '';

/** /setting/changeloginsteps/{1 phone | 2 e-mail | 3 security question}: verify, new password, done. */
export function ChangeLoginSteps({ way }: { way: LoginWay }) {
  const t = useT();
  useProfile();
  const checked = useFormCall(`steps-${way}`);
  const reset = useFormCall('steps-password');
  const [newpass, setNewpass] = useState('');
  const [confirm, setConfirm] = useState('');
  const [touched, setTouched] = useState(false);
  const page = reset.successes > 0 ? 2 : checked.successes > 0 ? 1 : 0;
  const newError = rules.password(newpass, '');
  const confirmError = rules.repeatOf(newpass)(confirm, '');
  const save = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (newError || confirmError || reset.pending) return;
    reset.submit({
      path: 'user/loginpassedit',
      params: { uid: uidOf(checked.data), valtype: VALTYPE[way], newpass, confirm_newpass: confirm },
    });
  };
  return (
    <MemberPage title={t('security.steps_title')}>
      <Steps page={page} labels={[t('forgot.step_verify'), t('forgot.step_reset'), t('forgot.step_done')]} />
      <p className="steps__way" data-testid="steps-way">{t(WAY_KEYS[way].label)}</p>
      {page === 0 && <VerifyIdentity way={way} checker={checked} submitLabel={t('forgot.next')} />}
      {page === 1 && (
        <form className="form" onSubmit={save} noValidate data-testid="new-password">
          <PasswordField name="newpass" label={t('forgot.new_password')} value={newpass} onChange={setNewpass}
            onBlur={() => setTouched(true)} error={touched ? newError : null} autoComplete="new-password" />
          <PasswordField name="confirm" label={t('forgot.confirm_password')} value={confirm} onChange={setConfirm}
            onBlur={() => setTouched(true)} error={touched ? confirmError : null} autoComplete="new-password" />
          {reset.error && <ErrorText error={errorText(t, reset.error)} testId="settings-error" />}
          <SubmitButton pending={reset.pending} testId="settings-submit">{t('common.submit')}</SubmitButton>
        </form>
      )}
      {page === 2 && (
        <div className="success" data-testid="steps-done">
          <div className="success__icon" aria-hidden="true">✓</div>
          <p>{t('security.password_changed')}</p>
          <Link href="/usercenter" className="btn btn--gold btn--block">{t('usercenter.title')}</Link>
        </div>
      )}
    </MemberPage>
  );
}

/**
 * /setting/safecertificate/{1 phone | 2 e-mail}: a code to the bound contact before it is
 * changed. The passed check's uid waits in the store (`certificate:<item>`) for the bind page,
 * which sends it as `old_uid`. Nothing bound yet: nothing to prove, the bind page directly.
 */
export function SafeCertificate({ item }: { item: CertifiedItem }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const profile = useProfile();
  const checker = useFormCall(`certify-${item}`);
  const uid = uidOf(checker.data);
  useEffect(() => {
    if (checker.successes === 0 || !uid) return;
    dispatch(formsActions.succeeded({ id: certificateId(item), data: { uid } }));
    navigate(CERTIFIED_PAGE[item]);
  }, [checker.successes, uid, item, dispatch]);
  const bound = item === 'phone' ? profile?.phone : profile?.email;
  return (
    <MemberPage title={t('security.certificate_title')}>
      <p className="form__note">{t(item === 'phone' ? 'security.certificate_phone' : 'security.certificate_email')}</p>
      {profile && !bound ? (
        <div className="form" data-testid="nothing-bound">
          <p>{t(item === 'phone' ? 'security.no_phone' : 'security.no_email')}</p>
          <Link href={CERTIFIED_PAGE[item]} className="btn btn--gold btn--block">
            {t(item === 'phone' ? 'settings.phone_bind' : 'settings.mail_bind')}
          </Link>
        </div>
      ) : (
        <VerifyIdentity way={item} checker={checker} submitLabel={t('forgot.next')} />
      )}
    </MemberPage>
  );
}

/** /setting/untiedphone and /setting/untiedmail: a code from the contact itself and the password; the other contact stays. */
export function UntiedContact({ item }: { item: CertifiedItem }) {
  const t = useT();
  const profile = useProfile();
  const id = `untie-${item}`;
  const sender = useSendCode(`sendcode:${id}`);
  const call = useFormCall(id);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const valtype = VALTYPE[item];
  const username = profile?.username ?? '';
  const bound = item === 'phone' ? profile?.phone : profile?.email;
  const blocked = unbindBlocked(profile, item);
  const codeError = rules.verifyCode(code, '');
  const passwordError = rules.loginPassword(password, '');
  const title = t(item === 'phone' ? 'security.untie_phone' : 'security.untie_email');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (codeError || passwordError || call.pending) return;
    call.submit({
      path: item === 'phone' ? 'user/mobileunbind' : 'user/emailunbind', after: 'profile', params: { loginpass: password },
      verify: { uidField: 'uid', params: { uid: sender.uid, type: SAFETY_TYPE, valtype, checkCode: code, username } },
    });
  };
  if (call.successes > 0) {
    return (
      <MemberPage title={title}>
        <div className="success" data-testid="untie-done">
          <div className="success__icon" aria-hidden="true">✓</div>
          <p>{t(item === 'phone' ? 'security.phone_unbound' : 'security.email_unbound')}</p>
          <Link href="/usercenter" className="btn btn--gold btn--block">{t('usercenter.title')}</Link>
        </div>
      </MemberPage>
    );
  }
  return (
    <MemberPage title={title}>
      {!profile ? <div className="page-loading" aria-busy="true" /> : blocked ? (
        <div className="form" data-testid="untie-blocked">
          {bound && <p className="form__note">{t('settings.current_value', bound)}</p>}
          <ErrorText error={blocked} />
          <Link href={item === 'phone' ? '/setting/mailbind' : '/setting/phonebind'} className="btn btn--gold btn--block">
            {t(item === 'phone' ? 'settings.mail_bind' : 'settings.phone_bind')}
          </Link>
        </div>
      ) : (
        <form className="form" onSubmit={submit} noValidate data-testid="untie-form">
          <p className="form__note">{t('settings.current_value', bound ?? '')}</p>
          <p className="security__hint">{t('security.untie_note')}</p>
          <CodeField name="code" label={t('form.code')} value={code} onChange={setCode}
            error={touched ? codeError : null} onBlur={() => setTouched(true)}
            onSend={() => sender.send({ type: SAFETY_TYPE, valtype, username })}
            sending={sender.sending} running={sender.running} remaining={sender.remaining} />
          {sender.error && <ErrorText error={errorText(t, sender.error)} />}
          <PasswordField name="loginpass" label={t('login.password')} value={password} onChange={setPassword}
            onBlur={() => setTouched(true)} error={touched ? passwordError : null} autoComplete="current-password" />
          <Outcome call={call} />
          <SubmitButton pending={call.pending} testId="settings-submit">{t('security.untie')}</SubmitButton>
        </form>
      )}
    </MemberPage>
  );
}

/** /setting/emailadress: the bound e-mail (masked) and the ways to bind, change or unbind it. */
export function EmailAddress() {
  const t = useT();
  const profile = useProfile();
  const email = profile?.email ?? '';
  return (
    <MemberPage title={t('security.email_address')}>
      <dl className="info-list" data-testid="email-address">
        <div className="info-list__row"><dt>{t('userinfo.email')}</dt><dd>{email || t('security.not_bound')}</dd></div>
        <div className="info-list__row">
          <dt>{t('security.status')}</dt>
          <dd className={email ? 'security__on' : 'security__off'}>{t(email ? 'security.bound' : 'security.not_bound')}</dd>
        </div>
      </dl>
      <p className="security__hint">{t('security.email_use')}</p>
      {profile && (email ? (
        <div className="security__actions">
          <Link href={certificateHref('email')} className="btn btn--gold btn--block" data-testid="email-change">{t('security.change_email')}</Link>
          <Link href="/setting/untiedmail" className="btn btn--ghost-dark btn--block" data-testid="email-untie">{t('security.untie_email')}</Link>
        </div>
      ) : (
        <Link href="/setting/mailbind" className="btn btn--gold btn--block" data-testid="email-bind">{t('settings.mail_bind')}</Link>
      ))}
    </MemberPage>
  );
}

/** /setting/mybirth: DD/MM/YYYY, age 18 to 100, set once (then read-only). */
export function MyBirth() {
  const t = useT();
  const profile = useProfile();
  const call = useFormCall('birth');
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const today = new Date();
  const error = birthRule(value, today);
  const bounds = birthBounds(today);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (error || call.pending) return;
    call.submit({ path: 'user/birthdateupdate', params: { birth_date: value }, after: 'profile' });
  };
  return (
    <MemberPage title={t('security.birth_title')}>
      {!profile ? <div className="page-loading" aria-busy="true" /> : birthEditable(profile) && call.successes === 0 ? (
        <form className="form" onSubmit={submit} noValidate data-testid="birth-form">
          <p className="form__note">{t('security.birth_note')}</p>
          <DateField label={t('userinfo.birth_date')} value={value} onChange={setValue} onBlur={() => setTouched(true)}
            error={touched ? error : null} min={bounds.min} max={bounds.max} />
          <Outcome call={call} />
          <SubmitButton pending={call.pending} testId="settings-submit">{t('common.save')}</SubmitButton>
        </form>
      ) : (
        <div className="form" data-testid="birth-view">
          <dl className="info-list">
            <div className="info-list__row">
              <dt>{t('userinfo.birth_date')}</dt><dd data-testid="birth-date">{rules.formatDisplayDate(profile.birth_date || value)}</dd>
            </div>
          </dl>
          <p className="security__hint">{t('security.birth_locked')}</p>
        </div>
      )}
    </MemberPage>
  );
}

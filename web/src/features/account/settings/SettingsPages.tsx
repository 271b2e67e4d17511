/**
 * /setting/* and /usercenter/userinfo (spec 001 sections 2.1, 7.2): each page is
 * a field list, a rule per field and one member call; bind pages verify a code
 * sent to the new number or address (send type 2: a contact nobody uses) and,
 * when one is bound, a code sent to the bound one (type 8), with the password.
 */
import { useCallback, useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { Link } from '../../../app/router';
import { CodeField, ErrorText, PasswordField, SubmitButton, TextField } from '../../../components/form';
import type { Message } from '../../../api/errors';
import * as rules from '../../../shared/validation';
import { useForm } from '../../../shared/useForm';
import { errorText, useT } from '../../i18n/useT';
import { selectLanguage } from '../../i18n/selectors';
import { selectLoggedIn, selectProfile } from '../../session/selectors';
import { sessionActions } from '../../session/sessionSlice';
import { uiActions } from '../../shell/uiSlice';
import { formsActions, type FormRequest } from '../formsSlice';
import { selectForm } from '../selectors';
import { useFormCall, useSendCode } from '../useSendCode';
import { SAFETY_TYPE, certificateHref, certificateId } from './security';

const NEW_CONTACT_TYPE = 2;

interface FieldSpec {
  name: string;
  label: string;
  kind?: 'text' | 'password' | 'select';
  options?: Array<{ value: string; label: string }>;
  rule: (value: string, values: Record<string, string>, market: string) => Message | null;
}

export function MemberPage({ title, children }: { title: string; children: ReactNode }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  return (
    <section className="card settings" data-testid="settings-page">
      <div className="settings__head">
        <Link href="/usercenter" className="settings__back" aria-label={t('common.back')}>‹</Link>
        <h1 className="card__title">{title}</h1>
      </div>
      {loggedIn ? children : (
        <div className="settings__guest">
          <p>{t('settings.login_first')}</p>
          <button type="button" className="btn btn--gold" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>
            {t('header.login')}
          </button>
        </div>
      )}
    </section>
  );
}

/** A page with plain fields and one call. */
function FieldsForm({ id, fields, request, submitLabel }: {
  id: string; fields: FieldSpec[]; submitLabel?: string;
  request: (values: Record<string, string>) => Omit<FormRequest, 'id'>;
}) {
  const t = useT();
  const market = useAppSelector(selectLanguage) ?? 'zhh';
  const call = useFormCall(id);
  const initial = useMemo(() => Object.fromEntries(fields.map((f) => [f.name, ''])), [fields]);
  const validate = useCallback(
    (v: Record<string, string>) => Object.fromEntries(fields.map((f) => [f.name, f.rule(v[f.name] ?? '', v, market)])),
    [fields, market],
  );
  const form = useForm(initial, validate);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.touchAll();
    if (form.valid && !call.pending) call.submit(request(form.values));
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      {fields.map((f) => {
        const common = {
          key: f.name, name: f.name, label: f.label, value: form.values[f.name] ?? '',
          onChange: (x: string) => form.set(f.name, x), onBlur: () => form.touch(f.name), error: form.shown(f.name),
        };
        if (f.kind === 'password') return <PasswordField {...common} autoComplete="new-password" />;
        if (f.kind === 'select') {
          return (
            <div className="field" key={f.name}>
              <label className="field__label">{f.label}
                <select className="field__input" value={common.value} onChange={(e) => common.onChange(e.target.value)}
                  onBlur={common.onBlur} data-testid={`field-${f.name}`}>
                  <option value="">{t('form.choose')}</option>
                  {f.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                </select>
              </label>
              <ErrorText error={common.error} />
            </div>
          );
        }
        return <TextField {...common} />;
      })}
      <Outcome call={call} />
      <SubmitButton pending={call.pending} testId="settings-submit">{submitLabel ?? t('common.save')}</SubmitButton>
    </form>
  );
}

export function Outcome({ call }: { call: ReturnType<typeof useFormCall> }) {
  const t = useT();
  if (call.error) return <ErrorText error={errorText(t, call.error)} testId="settings-error" />;
  if (call.status === 'done') return <p className="form__ok" role="status" data-testid="settings-ok">{t('settings.saved')}</p>;
  return null;
}

const req = (rule: rules.Rule) => (v: string, _all: Record<string, string>, market: string) => rule(v, market);

export function ChangeNickname() {
  const t = useT();
  const fields = useMemo<FieldSpec[]>(() => [{ name: 'nickname', label: t('settings.nickname'), rule: req(rules.nickname) }], [t]);
  return (
    <MemberPage title={t('settings.change_nickname')}>
      <FieldsForm id="nickname" fields={fields}
        request={(v) => ({ path: 'user/nicknameupdate', params: { nickname: v.nickname!.trim() }, after: 'profile' })} />
    </MemberPage>
  );
}

export function ChangeLoginPassword() {
  const t = useT();
  const fields = useMemo<FieldSpec[]>(() => [
    { name: 'oldpass', label: t('settings.old_password'), kind: 'password', rule: req(rules.loginPassword) },
    { name: 'newpass', label: t('forgot.new_password'), kind: 'password', rule: req(rules.password) },
    { name: 'confirm', label: t('forgot.confirm_password'), kind: 'password', rule: (v, all, m) => rules.repeatOf(all.newpass ?? '')(v, m) },
  ], [t]);
  return (
    <MemberPage title={t('settings.change_login')}>
      <FieldsForm id="loginpass" fields={fields} request={(v) => ({
        path: 'user/loginpassedit', params: { oldpass: v.oldpass, newpass: v.newpass, confirm_newpass: v.confirm },
      })} />
      <Link href="/setting/chosewayset" className="link-list__item" data-testid="forgot-old">
        {t('security.forgot_old')}<span aria-hidden="true">›</span>
      </Link>
    </MemberPage>
  );
}

export function ChangeTradePassword() {
  const t = useT();
  const fields = useMemo<FieldSpec[]>(() => [
    { name: 'fundpass', label: t('settings.fund_password'), kind: 'password', rule: req(rules.password) },
    { name: 'confirm', label: t('settings.confirm_fund_password'), kind: 'password', rule: (v, all, m) => rules.repeatOf(all.fundpass ?? '')(v, m) },
    { name: 'loginpass', label: t('login.password'), kind: 'password', rule: req(rules.loginPassword) },
  ], [t]);
  return (
    <MemberPage title={t('settings.change_trade')}>
      <FieldsForm id="fundpass" fields={fields} request={(v) => ({
        path: 'user/fundpassset', params: { fundpass: v.fundpass, confirm_fundpass: v.confirm, loginpass: v.loginpass }, after: 'profile',
      })} />
    </MemberPage>
  );
}

export function SetSecurityQuestion() {
  const t = useT();
  const fields = useMemo<FieldSpec[]>(() => [
    { name: 'question', label: t('settings.question'), kind: 'select', rule: req(rules.required),
      options: [1, 2, 3, 4].map((n) => ({ value: t(`settings.question_${n}`), label: t(`settings.question_${n}`) })) },
    { name: 'answer', label: t('settings.answer'), rule: req(rules.required) },
    { name: 'loginpass', label: t('login.password'), kind: 'password', rule: req(rules.loginPassword) },
  ], [t]);
  return (
    <MemberPage title={t('settings.set_security')}>
      <FieldsForm id="question" fields={fields} request={(v) => ({
        path: 'user/questionupdate', params: { question: v.question, answer: v.answer!.trim(), loginpass: v.loginpass }, after: 'profile',
      })} />
    </MemberPage>
  );
}

export function ChangeRealName() {
  const t = useT();
  const fields = useMemo<FieldSpec[]>(() => [{ name: 'realname', label: t('settings.realname'), rule: req(rules.realName) }], [t]);
  return (
    <MemberPage title={t('settings.change_realname')}>
      <FieldsForm id="realname" fields={fields}
        request={(v) => ({ path: 'user/realnameupdate', params: { realname: v.realname!.trim() }, after: 'profile' })} />
    </MemberPage>
  );
}

/**
 * Phone or e-mail binding: a code to the new target (type 2), and when one is
 * bound already a code to that one (type 8, the safety verification), then the
 * update with both checkcode uids (uid, old_uid) and the login password. A check
 * passed just before on /setting/safecertificate/{1|2} stands for the old code.
 */
function BindForm({ channel }: { channel: 'phone' | 'email' }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const market = useAppSelector(selectLanguage) ?? 'zhh';
  const profile = useAppSelector(selectProfile);
  const certificate = useAppSelector(selectForm(certificateId(channel)));
  const certified = (certificate.data as { uid?: string } | null)?.uid ?? '';
  const sender = useSendCode(`sendcode:bind-${channel}`);
  const oldSender = useSendCode(`sendcode:bind-old-${channel}`);
  const call = useFormCall(`bind-${channel}`);
  const [target, setTarget] = useState('');
  const [code, setCode] = useState('');
  const [oldCode, setOldCode] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState({ target: false, code: false, oldCode: false, password: false });
  const current = channel === 'phone' ? profile?.phone : profile?.email;
  // Once bound, the certificate is spent: forget it.
  useEffect(() => {
    if (call.successes > 0) dispatch(formsActions.reset(certificateId(channel)));
  }, [call.successes, channel, dispatch]);
  const targetError = channel === 'phone' ? rules.phone(target, market) : rules.email(target, market);
  const codeError = rules.verifyCode(code, market);
  const oldCodeError = current && !certified ? rules.verifyCode(oldCode, market) : null;
  const passwordError = rules.loginPassword(password, market);
  const valtype = channel === 'phone' ? 1 : 2;
  const key = channel === 'phone' ? 'mobile' : 'email';
  const username = profile?.username ?? '';

  const send = () => {
    setTouched((x) => ({ ...x, target: true }));
    if (!targetError) sender.send({ type: NEW_CONTACT_TYPE, valtype, [key]: target.trim() });
  };
  const sendOld = () => oldSender.send({ type: SAFETY_TYPE, valtype, username });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched({ target: true, code: true, oldCode: true, password: true });
    if (targetError || codeError || oldCodeError || passwordError || call.pending) return;
    const path = channel === 'email' ? 'user/emailupdate' : profile?.phone ? 'user/mobileupdate' : 'user/mobileinsert';
    const old = current && !certified
      ? [{ uidField: 'old_uid', params: { uid: oldSender.uid, type: SAFETY_TYPE, valtype, checkCode: oldCode, username } }]
      : [];
    call.submit({
      path, after: 'profile', params: { [key]: target.trim(), loginpass: password, ...(current && certified ? { old_uid: certified } : {}) },
      verify: [...old, { uidField: 'uid', params: { uid: sender.uid, type: NEW_CONTACT_TYPE, valtype, checkCode: code, [key]: target.trim() } }],
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      {current && <p className="form__note">{t('settings.current_value', current)}</p>}
      {current && certified && <p className="form__ok" data-testid="certified">{t('security.certified')}</p>}
      {current && !certified && (
        <Link href={certificateHref(channel)} className="form__link">{t('security.verify_first')}</Link>
      )}
      {current && !certified && (
        <CodeField name="old_code" label={t('settings.old_code', current)} value={oldCode} onChange={setOldCode}
          error={touched.oldCode ? oldCodeError : null} onBlur={() => setTouched((x) => ({ ...x, oldCode: true }))}
          onSend={sendOld} sending={oldSender.sending} running={oldSender.running} remaining={oldSender.remaining} />
      )}
      {oldSender.error && <ErrorText error={errorText(t, oldSender.error)} />}
      <TextField name={key} label={channel === 'phone' ? t('settings.new_phone') : t('settings.new_email')} value={target}
        onChange={setTarget} onBlur={() => setTouched((x) => ({ ...x, target: true }))} error={touched.target ? targetError : null}
        inputMode={channel === 'phone' ? 'tel' : 'email'} />
      <CodeField name="code" label={t('form.code')} value={code} onChange={setCode} error={touched.code ? codeError : null}
        onBlur={() => setTouched((x) => ({ ...x, code: true }))} onSend={send} sending={sender.sending}
        running={sender.running} remaining={sender.remaining} />
      {sender.error && <ErrorText error={errorText(t, sender.error)} />}
      <PasswordField name="loginpass" label={t('login.password')} value={password} onChange={setPassword}
        onBlur={() => setTouched((x) => ({ ...x, password: true }))} error={touched.password ? passwordError : null}
        autoComplete="current-password" />
      <Outcome call={call} />
      <SubmitButton pending={call.pending} testId="settings-submit">{t('common.save')}</SubmitButton>
    </form>
  );
}

export function PhoneBind() {
  const t = useT();
  return <MemberPage title={t('settings.phone_bind')}><BindForm channel="phone" /></MemberPage>;
}

export function MailBind() {
  const t = useT();
  return <MemberPage title={t('settings.mail_bind')}><BindForm channel="email" /></MemberPage>;
}

export function UserInfoPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const profile = useAppSelector(selectProfile);
  const loggedIn = useAppSelector(selectLoggedIn);
  useEffect(() => {
    if (loggedIn) dispatch(sessionActions.profileRequested());
  }, [dispatch, loggedIn]);
  const rows: Array<[string, string | undefined]> = profile ? [
    ['userinfo.username', profile.username], ['userinfo.nickname', profile.nickname], ['userinfo.realname', profile.realname],
    ['userinfo.phone', profile.phone], ['userinfo.email', profile.email], ['userinfo.country', profile.country_code],
    ['userinfo.currency', profile.currency_name],
    ['userinfo.gender', profile.gender === 'M' ? t('register.gender_m') : profile.gender === 'F' ? t('register.gender_f') : ''],
    ['userinfo.birth_date', profile.birth_date ? rules.formatDisplayDate(profile.birth_date) : ''],
    ['userinfo.vip', profile.vipname],
    ['userinfo.fund_password', profile.has_fund_password ? t('userinfo.set') : t('userinfo.not_set')],
    ['userinfo.security_question', profile.has_security_question ? t('userinfo.set') : t('userinfo.not_set')],
  ] : [];
  return (
    <MemberPage title={t('userinfo.title')}>
      <dl className="info-list" data-testid="userinfo">
        {rows.map(([key, value]) => (
          <div className="info-list__row" key={key}><dt>{t(key)}</dt><dd>{value || '—'}</dd></div>
        ))}
      </dl>
    </MemberPage>
  );
}

const SETTINGS_LINKS: Array<[string, string]> = [
  ['/usercenter/deposit', 'pay.title.deposit'],
  ['/usercenter/withdraw', 'pay.title.withdraw'],
  ['/usercenter/transfer', 'pay.title.transfer'],
  ['/usercenter/depositprogress', 'pay.title.depositprogress'],
  ['/fortunecenter', 'pay.title.fortunecenter'],
  ['/usercenter/monthlyCard', 'pay.title.monthlyCard'],
  ['/usercenter/userinfo', 'userinfo.title'],
  ['/setting/changenickname', 'settings.change_nickname'],
  ['/setting/changerealname', 'settings.change_realname'],
  ['/setting/changelogin', 'settings.change_login'],
  ['/setting/changetrade', 'settings.change_trade'],
  ['/setting/setsecurity', 'settings.set_security'],
  ['/setting/phonebind', 'settings.phone_bind'],
  ['/setting/untiedphone', 'security.untie_phone'],
  ['/setting/mailbind', 'settings.mail_bind'],
  ['/setting/emailadress', 'security.email_address'],
  ['/setting/mybirth', 'security.birth_title'],
  ['/setting/chosewayset', 'security.chose_way'],
  ['/setting/safergambling', 'rg.title'],
  ['/betdata', 'betdata.title'],
];

/** /usercenter: the way into the account pages. */
export function UserCenter() {
  const t = useT();
  return (
    <MemberPage title={t('usercenter.title')}>
      <nav className="link-list">
        {SETTINGS_LINKS.map(([href, key]) => <Link key={href} href={href} className="link-list__item">{t(key)}<span aria-hidden="true">›</span></Link>)}
      </nav>
    </MemberPage>
  );
}

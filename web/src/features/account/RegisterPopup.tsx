import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { CaptchaField, Checkbox, CodeField, ErrorText, PasswordField, Popup, SubmitButton, Tabs, TextField } from '../../components/form';
import type { Message } from '../../api/errors';
import * as rules from '../../shared/validation';
import { useForm, type Errors } from '../../shared/useForm';
import { selectConfig } from '../config/selectors';
import { errorText, useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { selectCountries, selectServerConfig } from '../session/selectors';
import { uiActions } from '../shell/uiSlice';
import { useFormCall, useSendCode } from './useSendCode';

/** Send type 2: registration (docs/protocol.md). */
export const REGISTER_TYPE = 2;

type Field =
  | 'phone' | 'email' | 'username' | 'code' | 'captcha' | 'password' | 'repassword'
  | 'country_code' | 'currency_name' | 'gender' | 'birth_date' | 'invite_code' | 'promo_code';

/** Form field -> the names the server may put in data.field. */
const SERVER_FIELDS: Record<string, Field> = {
  phone: 'phone', mobile: 'phone', phone_verify_code: 'code', email_verify_code: 'code', verify_code: 'code',
  email: 'email', username: 'username', captcha: 'captcha', password: 'password', repassword: 'repassword',
  country_code: 'country_code', currency_name: 'currency_name', gender: 'gender', birth_date: 'birth_date',
  invite_code: 'invite_code', promo_code: 'promo_code',
};

const FALLBACK_COUNTRIES = [
  { code: '86', country: 'CN', enable: true },
  { code: '66', country: 'TH', enable: true },
];

/** The rules of spec 001 section 5 for the chosen variant (0 phone, 1 e-mail, 2 username). */
export function validateRegistration(step: 0 | 1 | 2, market: string, today = new Date()) {
  return (v: Record<Field, string>): Errors<Field> => ({
    phone: step === 0 ? rules.phone(v.phone, market) : null,
    email: step === 1 ? rules.email(v.email, market) : null,
    username: step === 2 ? rules.username(v.username, market) : null,
    code: step !== 2 ? rules.verifyCode(v.code, market) : null,
    captcha: step === 2 ? rules.captcha(v.captcha, market) : null,
    password: rules.password(v.password, market) ?? rules.notSameAs(step === 2 ? v.username : '')(v.password, market),
    repassword: rules.repeatOf(v.password)(v.repassword, market),
    country_code: rules.required(v.country_code, market),
    currency_name: rules.required(v.currency_name, market),
    gender: rules.required(v.gender, market),
    birth_date: rules.birthDate(today)(v.birth_date, market),
    invite_code: rules.inviteCode(v.invite_code, market),
    promo_code: null,
  });
}

/** Registration popup (spec 001 section 2.6). */
export function RegisterPopup({ step }: { step: 0 | 1 | 2 }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const market = useAppSelector(selectLanguage) ?? 'zhh';
  const conf = useAppSelector(selectConfig);
  const server = useAppSelector(selectServerConfig);
  const allCountries = useAppSelector(selectCountries);
  const countries = useMemo(() => {
    const restricted = new Set(server?.restricted_countries ?? []);
    const list = allCountries.length ? allCountries : FALLBACK_COUNTRIES;
    return list.filter((c) => c.enable && !restricted.has(c.country));
  }, [allCountries, server]);
  const currencies = server?.currencies ?? conf?.currencies ?? [];
  const defaultCountry = countries.find((c) => c.code === (market === 'zhh' ? '86' : '66')) ?? countries[0];
  const today = useMemo(() => new Date(), []);

  const validate = useCallback((v: Record<Field, string>) => validateRegistration(step, market, today)(v), [step, market, today]);
  const form = useForm<Field>({
    phone: '', email: '', username: '', code: '', captcha: '', password: '', repassword: '',
    country_code: defaultCountry?.country ?? '', currency_name: server?.default_currency ?? conf?.default_currency ?? '',
    gender: '', birth_date: '', invite_code: '', promo_code: '',
  }, validate);
  const [agree, setAgree] = useState(false);
  const [agreeTouched, setAgreeTouched] = useState(false);
  const [uid, setUid] = useState('');
  const [captchaNonce, setCaptchaNonce] = useState(0);
  const [serverField, setServerField] = useState<{ field: Field; error: Message | string } | null>(null);
  const sender = useSendCode('sendcode:register');
  const call = useFormCall('register');

  // a new server error: its field's message, and a new image code at step 2
  // (adjusted while rendering, when the error changes, not in an effect)
  const [seenError, setSeenError] = useState(call.error);
  if (call.error !== seenError) {
    setSeenError(call.error);
    if (call.error) {
      const field = call.error.field ? SERVER_FIELDS[call.error.field] : undefined;
      setServerField(field ? { field, error: errorText(t, call.error) } : null);
      if (step === 2) setCaptchaNonce((n) => n + 1);
    }
  }

  const v = form.values;
  const dial = countries.find((c) => c.country === v.country_code)?.code ?? defaultCountry?.code ?? '86';
  const change = (name: Field) => (value: string) => {
    form.set(name, value);
    if (serverField?.field === name) setServerField(null);
  };
  const shown = (name: Field) => (serverField?.field === name ? serverField.error : form.shown(name));
  const blur = (name: Field) => () => form.touch(name);

  const sendCode = () => {
    form.touch(step === 0 ? 'phone' : 'email');
    if (step === 0 && !rules.phone(v.phone, market)) sender.send({ type: REGISTER_TYPE, valtype: 1, mobile: v.phone.trim() });
    if (step === 1 && !rules.email(v.email, market)) sender.send({ type: REGISTER_TYPE, valtype: 2, email: v.email.trim() });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.touchAll();
    setAgreeTouched(true);
    if (!form.valid || rules.agree(agree) || call.pending) return;
    const common = {
      password: v.password, repassword: v.repassword, country_code: v.country_code, currency_name: v.currency_name,
      gender: v.gender, birth_date: v.birth_date, invite_code: v.invite_code.trim(), promo_code: v.promo_code.trim(),
      agree: 1, language: market, site_id: conf?.site_id,
    };
    if (step === 0) {
      call.submit({
        path: 'default/registermobile', after: 'register',
        params: { ...common, phone: v.phone.trim(), phone_code: dial, phone_verify_code: v.code },
        verify: { uidField: 'phoneUid', params: { uid: sender.uid, type: REGISTER_TYPE, valtype: 1, checkCode: v.code, mobile: v.phone.trim() } },
      });
    } else if (step === 1) {
      call.submit({
        path: 'default/registerEmail', after: 'register',
        params: { ...common, email: v.email.trim(), email_verify_code: v.code },
        verify: { uidField: 'emailUid', params: { uid: sender.uid, type: REGISTER_TYPE, valtype: 2, checkCode: v.code, email: v.email.trim() } },
      });
    } else {
      call.submit({ path: 'default/register', after: 'register', params: { ...common, username: v.username.trim(), captcha: v.captcha, uid } });
    }
  };

  const reg = server?.registration;
  const showAffiliate = reg && !reg.promo_code_enabled && reg.affiliate_tag;
  const close = () => dispatch(uiActions.popupClosed());
  const general = call.error && !serverField ? errorText(t, call.error) : sender.error ? errorText(t, sender.error) : null;

  return (
    <Popup title={t('register.title')} onClose={close} testId="register-popup">
      <Tabs label={t('register.title')} value={step} onChange={(s) => dispatch(uiActions.registerStepChosen(s))} options={[
        { value: 0, label: t('register.tab_phone') },
        { value: 1, label: t('register.tab_email') },
        { value: 2, label: t('register.tab_username') },
      ]} />
      <form className="form" onSubmit={submit} noValidate>
        {step === 0 && (
          <TextField name="phone" label={t('register.phone')} value={v.phone} onChange={change('phone')} onBlur={blur('phone')}
            error={shown('phone')} inputMode="tel" autoComplete="tel-national" lead={<span className="field__prefix">+{dial}</span>} />
        )}
        {step === 1 && (
          <TextField name="email" label={t('register.email')} value={v.email} onChange={change('email')} onBlur={blur('email')}
            error={shown('email')} inputMode="email" autoComplete="email" />
        )}
        {step === 2 && (
          <TextField name="username" label={t('register.username')} value={v.username} onChange={change('username')}
            onBlur={blur('username')} error={shown('username')} autoComplete="username" />
        )}
        {step !== 2 && (
          <CodeField name="code" label={t('form.code')} value={v.code} onChange={change('code')} onBlur={blur('code')}
            error={shown('code')} onSend={sendCode} sending={sender.sending} running={sender.running} remaining={sender.remaining} />
        )}
        <PasswordField name="password" label={t('register.password')} value={v.password} onChange={change('password')}
          onBlur={blur('password')} error={shown('password')} autoComplete="new-password" />
        <PasswordField name="repassword" label={t('register.repassword')} value={v.repassword} onChange={change('repassword')}
          onBlur={blur('repassword')} error={shown('repassword')} autoComplete="new-password" />
        {step === 2 && (
          <CaptchaField value={v.captcha} onChange={change('captcha')} onBlur={blur('captcha')} error={shown('captcha')}
            nonce={captchaNonce} onUid={setUid} />
        )}
        <div className="form__grid">
          <SelectField name="country_code" label={t('register.country')} value={v.country_code} onChange={change('country_code')}
            error={shown('country_code')} options={countries.map((c) => ({ value: c.country, label: `${c.country} +${c.code}` }))} />
          <SelectField name="currency_name" label={t('register.currency')} value={v.currency_name} onChange={change('currency_name')}
            error={shown('currency_name')} options={currencies.map((c) => ({ value: c, label: c }))} />
          <SelectField name="gender" label={t('register.gender')} value={v.gender} onChange={change('gender')} onBlur={blur('gender')}
            error={shown('gender')} options={[{ value: 'M', label: t('register.gender_m') }, { value: 'F', label: t('register.gender_f') }]} />
          <DateField label={t('register.birth_date')} value={v.birth_date} onChange={change('birth_date')} onBlur={blur('birth_date')}
            error={shown('birth_date')} min={rules.yearsBefore(today, rules.LIMITS.age[1])} max={rules.yearsBefore(today, rules.LIMITS.age[0])} />
        </div>
        <TextField name="invite_code" label={t('register.invite_code')} value={v.invite_code} onChange={change('invite_code')}
          onBlur={blur('invite_code')} error={shown('invite_code')} maxLength={6} />
        {showAffiliate ? (
          <p className="form__note" data-testid="affiliate-tag">{t('register.affiliate_tag', reg.affiliate_tag ?? '')}</p>
        ) : (
          <TextField name="promo_code" label={t('register.promo_code')} value={v.promo_code} onChange={change('promo_code')}
            error={shown('promo_code')} />
        )}
        <Agreement agree={agree} onChange={(x) => { setAgree(x); setAgreeTouched(true); }} asLink={reg?.agreement_as_link ?? true} market={market} />
        <ErrorText error={agreeTouched ? rules.agree(agree) : null} testId="error-agree" />
        <ErrorText error={general} testId="register-error" />
        <SubmitButton pending={call.pending} testId="register-submit">{call.pending ? t('common.please_wait') : t('register.submit')}</SubmitButton>
      </form>
      <div className="form__links">
        <button type="button" className="link" onClick={() => dispatch(uiActions.popupOpened({ name: 'login' }))}>{t('register.to_login')}</button>
      </div>
    </Popup>
  );
}

function Agreement({ agree, onChange, asLink, market }: { agree: boolean; onChange: (v: boolean) => void; asLink: boolean; market: string }) {
  const t = useT();
  return (
    <div className="agreement">
      <Checkbox name="agree" checked={agree} onChange={onChange}>
        {t('register.agree_prefix')}{' '}
        {asLink ? (
          <a className="link" href={`/page/help-root-${market}/general-terms-and-conditions`} target="_blank" rel="noopener noreferrer"
            data-testid="agreement-link">{t('register.agreement')}</a>
        ) : (
          <span>{t('register.agreement')}</span>
        )}
      </Checkbox>
      {!asLink && (
        <div className="agreement__terms" data-testid="agreement-terms">
          <h3>{t('terms.account_title')}</h3><p>{t('terms.account')}</p>
          <h3>{t('terms.withdrawal_title')}</h3><p>{t('terms.withdrawal')}</p>
          <h3>{t('terms.preferential_title')}</h3><p>{t('terms.preferential')}</p>
        </div>
      )}
    </div>
  );
}

function SelectField({ name, label, value, onChange, options, error, onBlur }: {
  name: string; label: string; value: string; onChange: (v: string) => void; onBlur?: () => void;
  options: Array<{ value: string; label: string }>; error?: Message | string | null;
}) {
  const t = useT();
  return (
    <div className={error ? 'field has-error' : 'field'}>
      <label className="field__label">
        {label}
        <select className="field__input" value={value} onChange={(e) => onChange(e.target.value)} onBlur={onBlur}
          data-testid={`field-${name}`}>
          <option value="">{t('form.choose')}</option>
          {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </select>
      </label>
      <ErrorText error={error} testId={`error-${name}`} />
    </div>
  );
}

/** Birth date: a native date picker shown as DD/MM/YYYY, bounded by the age rule. */
export function DateField({ label, value, onChange, onBlur, error, min, max }: {
  label: string; value: string; onChange: (v: string) => void; onBlur: () => void; error?: Message | string | null; min: string; max: string;
}) {
  return (
    <div className={error ? 'field has-error' : 'field'}>
      <label className="field__label">
        {label}
        <span className="field__date">
          <span className={value ? 'field__input' : 'field__input is-placeholder'}>{value ? rules.formatDisplayDate(value) : 'DD/MM/YYYY'}</span>
          <input type="date" className="field__date-picker" value={value} min={min} max={max} aria-label={label}
            onChange={(e) => onChange(e.target.value)} onBlur={onBlur} data-testid="field-birth_date" />
        </span>
      </label>
      <ErrorText error={error} testId="error-birth_date" />
    </div>
  );
}

export function RegistrationSuccess() {
  const t = useT();
  const dispatch = useAppDispatch();
  return (
    <Popup title={t('register.success_title')} onClose={() => dispatch(uiActions.popupClosed())} testId="register-success">
      <div className="success">
        <div className="success__icon" aria-hidden="true">✓</div>
        <p className="sheet__text">{t('register.success_text')}</p>
        <button type="button" className="btn btn--gold btn--block" data-testid="register-success-ok"
          onClick={() => dispatch(uiActions.popupClosed())}>{t('register.success_ok')}</button>
      </div>
    </Popup>
  );
}

import { useCallback, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { CaptchaField, Checkbox, ErrorText, PasswordField, Popup, SubmitButton, Tabs, TextField } from '../../components/form';
import * as rules from '../../shared/validation';
import { useForm } from '../../shared/useForm';
import { errorText, useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { uiActions } from '../shell/uiSlice';
import { selectCaptchaNonce, selectLoggingIn, selectLoginError } from './selectors';
import { sessionActions } from './sessionSlice';
import { readRememberedUsername } from './storage';

type Way = 'phone' | 'username' | 'email';
const ACCOUNT_RULE: Record<Way, rules.Rule> = { phone: rules.phone, username: rules.username, email: rules.email };

/** Login popup (spec 001 section 2.5): phone / username / e-mail tabs, password, image code, remember. */
export function LoginPopup() {
  const t = useT();
  const dispatch = useAppDispatch();
  const market = useAppSelector(selectLanguage) ?? 'zhh';
  const pending = useAppSelector(selectLoggingIn);
  const loginError = useAppSelector(selectLoginError);
  const nonce = useAppSelector(selectCaptchaNonce);
  const remembered = readRememberedUsername();
  const [way, setWay] = useState<Way>('username');
  const [remember, setRemember] = useState(remembered !== '');
  const [uid, setUid] = useState('');

  const validate = useCallback(
    (v: Record<'account' | 'password' | 'captcha', string>) => ({
      account: ACCOUNT_RULE[way](v.account, market),
      password: rules.loginPassword(v.password, market),
      captcha: rules.captcha(v.captcha, market),
    }),
    [way, market],
  );
  const form = useForm({ account: remembered, password: '', captcha: '' }, validate);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    form.touchAll();
    if (!form.valid || pending) return;
    dispatch(sessionActions.loginRequested({
      username: form.values.account.trim(), password: form.values.password, validateCode: form.values.captcha, uid, remember,
    }));
    form.set('captcha', '');
  };
  const close = () => {
    dispatch(sessionActions.clearLoginError());
    dispatch(uiActions.popupClosed());
  };
  const accountLabel = { phone: t('login.phone'), username: t('login.username'), email: t('login.email') }[way];

  return (
    <Popup title={t('login.title')} onClose={close} testId="login-popup">
      <Tabs label={t('login.title')} value={way} onChange={(w) => setWay(w)} options={[
        { value: 'phone', label: t('login.tab_phone') },
        { value: 'username', label: t('login.tab_username') },
        { value: 'email', label: t('login.tab_email') },
      ]} />
      <form className="form" onSubmit={submit} noValidate>
        <TextField name="account" label={accountLabel} value={form.values.account} error={form.shown('account')}
          onChange={(v) => form.set('account', v)} onBlur={() => form.touch('account')} autoComplete="username"
          inputMode={way === 'phone' ? 'tel' : way === 'email' ? 'email' : 'text'} />
        <PasswordField name="password" label={t('login.password')} value={form.values.password} error={form.shown('password')}
          onChange={(v) => form.set('password', v)} onBlur={() => form.touch('password')} />
        <CaptchaField value={form.values.captcha} onChange={(v) => form.set('captcha', v)} error={form.shown('captcha')}
          nonce={nonce} onUid={setUid} onBlur={() => form.touch('captcha')} />
        <Checkbox name="remember" checked={remember} onChange={setRemember}>{t('login.remember')}</Checkbox>
        <ErrorText error={loginError ? errorText(t, loginError) : null} testId="login-error" />
        <SubmitButton pending={pending} testId="login-submit">{pending ? t('common.please_wait') : t('login.submit')}</SubmitButton>
      </form>
      <div className="form__links">
        <button type="button" className="link" data-testid="login-to-register"
          onClick={() => dispatch(uiActions.popupOpened({ name: 'register', step: 0 }))}>{t('login.to_register')}</button>
        <button type="button" className="link" data-testid="login-to-forgot"
          onClick={() => dispatch(uiActions.popupOpened({ name: 'forgot' }))}>{t('login.forgot')}</button>
      </div>
    </Popup>
  );
}

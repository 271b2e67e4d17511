import { useCallback, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { CodeField, ErrorText, PasswordField, Popup, SubmitButton, Tabs, TextField } from '../../components/form';
import * as rules from '../../shared/validation';
import { useForm } from '../../shared/useForm';
import { errorText, useT } from '../i18n/useT';
import { selectLanguage } from '../i18n/selectors';
import { uiActions } from '../shell/uiSlice';
import { useFormCall, useSendCode } from './useSendCode';

/** Send type 5: password reset. */
export const RESET_TYPE = 5;

/** Forgot password (spec 001 section 2.7): 0 account and code, 1 new password, 2 success. */
export function ForgotPopup() {
  const t = useT();
  const dispatch = useAppDispatch();
  const market = useAppSelector(selectLanguage) ?? 'zhh';
  const [way, setWay] = useState<'phone' | 'email'>('phone');
  const sender = useSendCode('sendcode:forgot');
  const checker = useFormCall('forgot-check');
  const reset = useFormCall('forgot-reset');
  const page = reset.successes > 0 ? 2 : checker.successes > 0 ? 1 : 0;

  const validate = useCallback((v: Record<'account' | 'code' | 'newpass' | 'confirm', string>) => ({
    account: way === 'phone' ? rules.forgotPhone(v.account, market) : rules.forgotEmail(v.account, market),
    code: rules.verifyCode(v.code, market),
    newpass: rules.password(v.newpass, market),
    confirm: rules.repeatOf(v.newpass)(v.confirm, market),
  }), [way, market]);
  const form = useForm({ account: '', code: '', newpass: '', confirm: '' }, validate);
  const v = form.values;
  const target = way === 'phone' ? { mobile: v.account.trim() } : { email: v.account.trim() };
  const valtype = way === 'phone' ? 1 : 2;

  const send = () => {
    form.touch('account');
    if (!form.errors.account) sender.send({ type: RESET_TYPE, valtype, ...target });
  };
  const next = (e: FormEvent) => {
    e.preventDefault();
    form.touch('account');
    form.touch('code');
    if (form.errors.account || form.errors.code || checker.pending) return;
    checker.submit({ path: 'checkcode', params: { uid: sender.uid, type: RESET_TYPE, valtype, checkCode: v.code, ...target } });
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    form.touch('newpass');
    form.touch('confirm');
    if (form.errors.newpass || form.errors.confirm || reset.pending) return;
    const uid = (checker.data as { uid?: string } | null)?.uid ?? '';
    reset.submit({ path: 'forgetpass', params: { ...target, newpass: v.newpass, confirm_newpass: v.confirm, uid } });
  };
  const close = () => dispatch(uiActions.popupClosed());
  // Check-code status 2: no code was sent for this account yet.
  const checkError = checker.error?.status === 2 ? t('forgot.send_first') : checker.error ? errorText(t, checker.error) : null;

  return (
    <Popup title={t('forgot.title')} onClose={close} testId="forgot-popup">
      <ol className="steps" aria-label={t('forgot.title')}>
        {[t('forgot.step_verify'), t('forgot.step_reset'), t('forgot.step_done')].map((label, i) => (
          <li key={label} className={i <= page ? 'steps__item is-done' : 'steps__item'}>{label}</li>
        ))}
      </ol>
      {page === 0 && (
        <>
          <Tabs label={t('forgot.title')} value={way} onChange={(w) => { setWay(w); form.set('account', ''); sender.stop(); }} options={[
            { value: 'phone', label: t('forgot.by_phone') },
            { value: 'email', label: t('forgot.by_email') },
          ]} />
          <form className="form" onSubmit={next} noValidate>
            <TextField name="account" label={way === 'phone' ? t('register.phone') : t('register.email')} value={v.account}
              onChange={(x) => form.set('account', x)} onBlur={() => form.touch('account')} error={form.shown('account')}
              inputMode={way === 'phone' ? 'tel' : 'email'} />
            <CodeField name="code" label={t('form.code')} value={v.code} onChange={(x) => form.set('code', x)}
              onBlur={() => form.touch('code')} error={form.shown('code')} onSend={send}
              sending={sender.sending} running={sender.running} remaining={sender.remaining} />
            <ErrorText error={sender.error ? errorText(t, sender.error) : checkError} />
            <SubmitButton pending={checker.pending}>{t('forgot.next')}</SubmitButton>
          </form>
        </>
      )}
      {page === 1 && (
        <form className="form" onSubmit={save} noValidate>
          <PasswordField name="newpass" label={t('forgot.new_password')} value={v.newpass} onChange={(x) => form.set('newpass', x)}
            onBlur={() => form.touch('newpass')} error={form.shown('newpass')} autoComplete="new-password" />
          <PasswordField name="confirm" label={t('forgot.confirm_password')} value={v.confirm} onChange={(x) => form.set('confirm', x)}
            onBlur={() => form.touch('confirm')} error={form.shown('confirm')} autoComplete="new-password" />
          <ErrorText error={reset.error ? errorText(t, reset.error) : null} />
          <SubmitButton pending={reset.pending}>{t('common.submit')}</SubmitButton>
        </form>
      )}
      {page === 2 && (
        <div className="success">
          <div className="success__icon" aria-hidden="true">✓</div>
          <p className="sheet__text">{t('forgot.success')}</p>
          <button type="button" className="btn btn--gold btn--block"
            onClick={() => dispatch(uiActions.popupOpened({ name: 'login' }))}>{t('forgot.to_login')}</button>
        </div>
      )}
    </Popup>
  );
}

/** #action=verify outcome (spec 001 section 8). */
export function EmailConfirmPopup({ ok }: { ok: boolean }) {
  const t = useT();
  const dispatch = useAppDispatch();
  return (
    <Popup title={t('email_confirm.title')} onClose={() => dispatch(uiActions.popupClosed())} testId="email-confirm">
      <p className={ok ? 'sheet__text sheet__text--ok' : 'sheet__text sheet__text--error'}>
        {ok ? t('email_confirm.ok') : t('email_confirm.error')}
      </p>
      <button type="button" className="btn btn--gold btn--block" onClick={() => dispatch(uiActions.popupClosed())}>{t('common.confirm')}</button>
    </Popup>
  );
}

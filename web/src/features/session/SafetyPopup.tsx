import { useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { CaptchaField, CodeField, ErrorText, Popup, SubmitButton, Tabs } from '../../components/form';
import * as rules from '../../shared/validation';
import { useFormCall, useSendCode } from '../account/useSendCode';
import { errorText, useT } from '../i18n/useT';
import { uiActions } from '../shell/uiSlice';
import { reloginRequested } from './sagas';
import { selectCaptchaNonce, selectLoggingIn, selectLoginError, selectSafety } from './selectors';

/** Send type 8: safety verification (docs/protocol.md). */
export const SAFETY_TYPE = 8;

/** The -10010 confirm dialog: this device must be verified before logging in. */
export function SafetyConfirm() {
  const t = useT();
  const dispatch = useAppDispatch();
  return (
    <Popup title={t('safety.title')} testId="safety-confirm">
      <p className="sheet__text">{t('error.safety_required')}</p>
      <div className="sheet__actions">
        <button type="button" className="btn btn--ghost-dark" onClick={() => dispatch(uiActions.popupClosed())}>{t('common.cancel')}</button>
        <button type="button" className="btn btn--gold" data-testid="safety-confirm-ok"
          onClick={() => dispatch(uiActions.popupOpened({ name: 'safety' }))}>{t('common.confirm')}</button>
      </div>
    </Popup>
  );
}

/** Safety verification (spec 001 section 2.8): channel, send, verify, then log in again. */
export function SafetyPopup() {
  const t = useT();
  const dispatch = useAppDispatch();
  const safety = useAppSelector(selectSafety);
  const nonce = useAppSelector(selectCaptchaNonce);
  const loginError = useAppSelector(selectLoginError);
  const loggingIn = useAppSelector(selectLoggingIn);
  const channels = safety?.channels.length ? safety.channels : (['phone'] as const);
  const [channel, setChannel] = useState<'phone' | 'email'>(channels[0] ?? 'phone');
  const [code, setCode] = useState('');
  const [captcha, setCaptcha] = useState('');
  const [uid, setUid] = useState('');
  const [touched, setTouched] = useState(false);
  const sender = useSendCode('safety-send');
  const checker = useFormCall('safety-check');
  const valtype = channel === 'phone' ? 1 : 2;
  const username = safety?.username ?? '';
  const verified = checker.successes > 0;

  const verify = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (rules.verifyCode(code, '') || checker.pending) return;
    checker.submit({ path: 'checkcode', params: { uid: sender.uid, type: SAFETY_TYPE, valtype, checkCode: code, username } });
  };
  const relogin = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (rules.captcha(captcha, '') || loggingIn) return;
    dispatch(reloginRequested({ validateCode: captcha, uid }));
    setCaptcha('');
  };
  const close = () => dispatch(uiActions.popupClosed());

  if (verified) {
    return (
      <Popup title={t('safety.title')} onClose={close} testId="safety-popup">
        <form className="form" onSubmit={relogin} noValidate>
          <p className="sheet__text sheet__text--ok">{t('safety.verified')}</p>
          <CaptchaField value={captcha} onChange={setCaptcha} nonce={nonce} onUid={setUid}
            error={touched ? rules.captcha(captcha, '') : null} />
          <ErrorText error={loginError ? errorText(t, loginError) : null} testId="login-error" />
          <SubmitButton pending={loggingIn} testId="safety-relogin">{t('safety.login_again')}</SubmitButton>
        </form>
      </Popup>
    );
  }

  const target = channel === 'phone' ? safety?.phone : safety?.email;
  return (
    <Popup title={t('safety.title')} onClose={close} testId="safety-popup">
      {channels.length > 1 && (
        <Tabs label={t('safety.channel')} value={channel} onChange={(c) => { setChannel(c); sender.stop(); }} options={[
          { value: 'phone', label: t('safety.by_phone') },
          { value: 'email', label: t('safety.by_email') },
        ]} />
      )}
      <form className="form" onSubmit={verify} noValidate>
        <p className="sheet__text">{t(channel === 'phone' ? 'safety.send_to_phone' : 'safety.send_to_email', target ?? '')}</p>
        <CodeField name="code" label={t('form.code')} value={code} onChange={setCode}
          error={touched ? rules.verifyCode(code, '') : null} onBlur={() => setTouched(true)}
          sending={sender.sending} running={sender.running} remaining={sender.remaining}
          onSend={() => sender.send({ type: SAFETY_TYPE, valtype, username })} />
        <ErrorText error={sender.error ? errorText(t, sender.error) : checker.error ? errorText(t, checker.error) : null} />
        <SubmitButton pending={checker.pending} testId="safety-verify">{t('safety.verify')}</SubmitButton>
      </form>
    </Popup>
  );
}

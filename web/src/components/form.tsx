/** Small form and popup building blocks shared by the account screens. */
import { useEffect, useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import type { Message } from '../api/errors';
import { randomAlnum } from '../api/crypto';
import { useT } from '../features/i18n/useT';

export function Popup({ title, onClose, children, testId, wide }: {
  title: string; onClose?: () => void; children: ReactNode; testId?: string; wide?: boolean;
}) {
  const t = useT();
  const titleId = useId();
  return (
    <div className="overlay overlay--sheet" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid={testId}>
      <div className={wide ? 'sheet sheet--wide' : 'sheet'}>
        <div className="sheet__head">
          <h2 id={titleId} className="sheet__title">{title}</h2>
          {onClose && (
            <button type="button" className="sheet__close" aria-label={t('common.close')} onClick={onClose}>×</button>
          )}
        </div>
        <div className="sheet__body">{children}</div>
      </div>
    </div>
  );
}

export function Tabs<V extends string | number>({ value, options, onChange, label }: {
  value: V; options: Array<{ value: V; label: string }>; onChange: (v: V) => void; label: string;
}) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {options.map((o) => (
        <button key={o.value} type="button" role="tab" aria-selected={o.value === value}
          className={o.value === value ? 'tabs__tab is-active' : 'tabs__tab'} onClick={() => onChange(o.value)}>
          {o.label}
        </button>
      ))}
    </div>
  );
}

export function ErrorText({ error, testId }: { error: Message | string | null | undefined; testId?: string }) {
  const t = useT();
  if (!error) return null;
  const text = typeof error === 'string' ? error : t(error.key, ...error.args);
  return <p className="field__error" role="alert" data-testid={testId}>{text}</p>;
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: Message | string | null;
  addon?: ReactNode;
  lead?: ReactNode;
};

export function TextField({ label, value, onChange, error, addon, lead, name, ...rest }: InputProps) {
  const id = useId();
  return (
    <div className={error ? 'field has-error' : 'field'}>
      <label className="field__label" htmlFor={id}>{label}</label>
      <div className="field__row">
        {lead}
        <input id={id} name={name} className="field__input" value={value} placeholder={label}
          onChange={(e) => onChange(e.target.value)} data-testid={name ? `field-${name}` : undefined} {...rest} />
        {addon}
      </div>
      <ErrorText error={error} testId={name ? `error-${name}` : undefined} />
    </div>
  );
}

/** Password input revealed while the eye is held (spec 001 section 2.6). */
export function PasswordField(props: InputProps) {
  const t = useT();
  const [shown, setShown] = useState(false);
  const hide = () => setShown(false);
  return (
    <TextField {...props} type={shown ? 'text' : 'password'} autoComplete={props.autoComplete ?? 'current-password'}
      addon={
        <button type="button" className="field__eye" aria-label={t('form.show_password')}
          onPointerDown={() => setShown(true)} onPointerUp={hide} onPointerLeave={hide} onPointerCancel={hide}>
          <svg viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
            <path d="M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z" /><circle cx="12" cy="12" r="3" />
          </svg>
        </button>
      } />
  );
}

/** Verification code input with the send button that turns into 'Resend Msg (n)'. */
export function CodeField({ label, value, onChange, error, onSend, sending, remaining, running, name, onBlur }: {
  label: string; value: string; onChange: (v: string) => void; error?: Message | string | null; name: string;
  onSend: () => void; sending: boolean; remaining: number; running: boolean; onBlur?: () => void;
}) {
  const t = useT();
  return (
    <TextField label={label} value={value} onChange={(v) => onChange(v.replace(/\D/g, '').slice(0, 4))} error={error}
      name={name} inputMode="numeric" autoComplete="one-time-code" maxLength={4} onBlur={onBlur}
      addon={
        <button type="button" className="field__send" onClick={onSend} disabled={sending || running} data-testid={`send-${name}`}>
          {running ? t('form.resend', remaining) : t('form.send_code')}
        </button>
      } />
  );
}

/** A fresh 16-character uid for validateimage. */
export const newCaptchaUid = () => randomAlnum(16);

/** The 4-digit image code: a fresh uid per image; a click (or a new `nonce`) refreshes it. */
export function CaptchaField({ value, onChange, error, nonce, onUid, onBlur }: {
  value: string; onChange: (v: string) => void; error?: Message | string | null; nonce: number;
  onUid: (uid: string) => void; onBlur?: () => void;
}) {
  const t = useT();
  const [uid, setUid] = useState(newCaptchaUid);
  const [failed, setFailed] = useState(false);
  const refresh = () => {
    setFailed(false);
    setUid(newCaptchaUid());
  };
  // a new nonce asks for a new image: adjusted while rendering, not in an effect
  const [seenNonce, setSeenNonce] = useState(nonce);
  if (nonce !== seenNonce) {
    setSeenNonce(nonce);
    if (nonce > 0) refresh();
  }
  useEffect(() => onUid(uid), [uid, onUid]);
  return (
    <TextField label={t('form.captcha')} value={value} onChange={(v) => onChange(v.replace(/\D/g, '').slice(0, 4))}
      error={error ?? (failed ? t('form.captcha_failed') : null)} name="captcha" inputMode="numeric" maxLength={4}
      autoComplete="off" onBlur={onBlur}
      addon={
        <button type="button" className="field__captcha" onClick={refresh} aria-label={t('form.captcha_refresh')}>
          <img src={`/api/validateimage?uid=${uid}`} alt={t('form.captcha')} data-testid="captcha-image" data-uid={uid}
            width={84} height={32} onError={() => setFailed(true)} />
        </button>
      } />
  );
}

export function Checkbox({ checked, onChange, children, name }: {
  checked: boolean; onChange: (v: boolean) => void; children: ReactNode; name?: string;
}) {
  return (
    <label className="checkbox">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)}
        data-testid={name ? `field-${name}` : undefined} />
      <span>{children}</span>
    </label>
  );
}

export function SubmitButton({ children, pending, testId }: { children: ReactNode; pending: boolean; testId?: string }) {
  return (
    <button type="submit" className="btn btn--gold btn--block" disabled={pending} aria-busy={pending} data-testid={testId}>
      {children}
    </button>
  );
}

/** Shared pieces of the payment pages: the page frame, loading, popups. */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { uiActions } from '../shell/uiSlice';
import { payError } from './api';
import { formatDateTime } from '../../shared/time';

/** A sub-page with its title (spec 001 section 2.3) and a back link. */
export function PayPage({ title, back = '/usercenter', testId, children }: {
  title: string; back?: string; testId: string; children: ReactNode;
}) {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  return (
    <section className="card pay" data-testid={testId}>
      <div className="settings__head">
        <Link href={back} className="settings__back" aria-label={t('common.back')}>‹</Link>
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

/** Loads `load()` once logged in, again on `reload()`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!loggedIn) return;
    let live = true;
    load().then((d) => live && (setData(d), setError(''))).catch((e) => live && setError(payError(t, e)));
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loggedIn, tick, ...deps]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, reload };
}

/** Runs one call at a time and keeps its error text. */
export function useAction() {
  const t = useT();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');
  const run = useCallback(async <T,>(call: () => Promise<T>): Promise<T | null> => {
    setPending(true);
    setError('');
    try {
      return await call();
    } catch (e) {
      setError(payError(t, e));
      return null;
    } finally {
      setPending(false);
    }
  }, [t]);
  return { pending, error, setError, run };
}

/** A small confirm popup (confirm deposit, confirm withdraw, transfer success, bank change). */
export function PayPopup({ title, testId, children, onClose, actions }: {
  title: string; testId: string; children: ReactNode; onClose: () => void; actions?: ReactNode;
}) {
  const t = useT();
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label={title} data-testid={testId}>
      <div className="popup">
        <h2 className="popup__title">{title}</h2>
        <div className="pay__popup-body">{children}</div>
        <div className="sheet__actions">
          <button type="button" className="btn btn--ghost-dark" onClick={onClose}>{t('common.close')}</button>
          {actions}
        </div>
      </div>
    </div>
  );
}

export function Rows({ rows }: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="pay__rows">
      {rows.map(([k, v]) => (
        <div key={k} className="pay__row"><dt>{k}</dt><dd>{v}</dd></div>
      ))}
    </dl>
  );
}

/** 'YYYY-MM-DD HH:mm' in the member's zone (Asia/Bangkok, China time for zhh: shared/time.ts); '' for none. */
export const fmtTime = (ms: number) => (ms ? formatDateTime(ms) : '');

/** The date presets of spec 000 section 9. */
export const PRESETS = ['today', 'yesterday', '2days', '3days', 'week', 'month'] as const;

export function Presets({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const t = useT();
  return (
    <div className="pay__chips" role="group" aria-label={t('pay.period')}>
      {PRESETS.map((p) => (
        <button key={p} type="button" className={`pay__chip${value === p ? ' is-active' : ''}`} onClick={() => onChange(p)}>
          {t(`pay.preset.${p}`)}
        </button>
      ))}
    </div>
  );
}

export function ErrorLine({ text }: { text: string }) {
  return text ? <p className="field__error" role="alert" data-testid="pay-error">{text}</p> : null;
}

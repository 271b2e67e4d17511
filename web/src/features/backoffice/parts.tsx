/** Small building blocks of the back office screens. */
import type { ReactNode } from 'react';
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { STATUS_KEYS } from '../history/model';
import type { BoError } from './api';

export function ErrorBox({ error, testId }: { error: BoError | null; testId?: string }) {
  const t = useT();
  if (!error) return null;
  return (
    <p className={`bo-alert bo-alert--${error.kind}`} role="alert" data-testid={testId ?? `bo-error-${error.kind}`}>
      {error.key ? t(error.key, ...error.args) : error.text}
    </p>
  );
}

/** Epoch ms or s, or a date string, as local 'YYYY-MM-DD HH:mm:ss'. */
export function timeText(v: number | string | null | undefined): string {
  if (v === null || v === undefined || v === '') return '';
  const n = typeof v === 'number' ? v : Number(v);
  const ms = Number.isFinite(n) ? (n < 1e12 ? n * 1000 : n) : Date.parse(String(v));
  if (Number.isNaN(ms)) return String(v);
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function Time({ value }: { value: number | string | null | undefined }) {
  return <time className="bo-time">{timeText(value)}</time>;
}

export const money = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '—' : formatMoney(String(v)));
export const odds = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' || !Number(v) ? '—' : Number(v).toFixed(2));

/** Bet status as the member sees it (On Hold, Declined ...). */
export function StatusBadge({ status }: { status: number }) {
  const t = useT();
  return <span className={`bo-badge bo-badge--s${status}`} data-testid="bo-status">{t(STATUS_KEYS[status] ?? 'history.status.unsettled')}</span>;
}

export function SuperBadge({ status }: { status: number | null | undefined }) {
  const t = useT();
  if (status === null || status === undefined) return null;
  return <span className={`bo-badge bo-badge--super${status}`}>{t(`bo.super.${status}`)}</span>;
}

/** Expandable pretty JSON. */
export function JsonBlock({ label, value, open, testId }: { label: string; value: unknown; open?: boolean; testId?: string }) {
  return (
    <details className="bo-json" open={open} data-testid={testId}>
      <summary>{label}</summary>
      <pre>{JSON.stringify(value ?? null, null, 2)}</pre>
    </details>
  );
}

export function Panel({ title, children, actions, testId }: { title: ReactNode; children: ReactNode; actions?: ReactNode; testId?: string }) {
  return (
    <section className="bo-panel" data-testid={testId}>
      <div className="bo-panel__head">
        <h2 className="bo-panel__title">{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function Loading() {
  const t = useT();
  return <p className="bo-muted" aria-busy="true">{t('common.please_wait')}</p>;
}

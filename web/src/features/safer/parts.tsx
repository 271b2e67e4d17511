/** Building blocks of the safer gambling page: a section, a select field, a change's outcome. */
import { useId, type ReactNode } from 'react';
import { ErrorText } from '../../components/form';
import type { Message } from '../../api/errors';
import { errorText, useT } from '../i18n/useT';
import { keepDates } from './dates';
import type { SaferState } from './saferSlice';

export function Section({ id, title, intro, children, testId }: {
  id?: string; title: string; intro?: string; children: ReactNode; testId?: string;
}) {
  const titleId = useId();
  return (
    <section className="rg-section" id={id} aria-labelledby={titleId} data-testid={testId}>
      <h2 className="rg-section__title" id={titleId}>{title}</h2>
      {intro && <p className="rg-section__intro">{intro}</p>}
      {children}
    </section>
  );
}

export function SelectField<V extends string | number>({ name, label, value, options, onChange, disabled }: {
  name: string; label: string; value: V; options: ReadonlyArray<{ value: V; label: string }>; onChange: (v: V) => void; disabled?: boolean;
}) {
  return (
    <div className="field">
      <label className="field__label">{label}
        <select className="field__input rg-select" value={String(value)} data-testid={`field-${name}`} disabled={disabled}
          onChange={(e) => {
            const picked = options.find((o) => String(o.value) === e.target.value);
            if (picked) onChange(picked.value);
          }}>
          {options.map((o) => <option key={String(o.value)} value={String(o.value)}>{o.label}</option>)}
        </select>
      </label>
    </div>
  );
}

/** A section's last change: its refusal, or `done` (a message of its own) once it went through. */
export function Outcome({ outcome, done, testId }: {
  outcome: SaferState['action'] | null; done: Message | null; testId: string;
}) {
  const t = useT();
  if (!outcome) return null;
  if (outcome.status === 'failed' && outcome.error) return <ErrorText error={errorText(t, outcome.error)} testId={`${testId}-error`} />;
  if (outcome.status === 'done' && done) {
    return <p className="form__ok" role="status" data-testid={`${testId}-ok`}>{keepDates(t(done.key, ...done.args))}</p>;
  }
  return null;
}

/** Dates in a sentence ('... until 2026-12-15 00:36.') that never break across lines. */
import { Fragment, type ReactNode } from 'react';

const DATE = /(\d{4}-\d{2}-\d{2} \d{2}:\d{2})/;

export function keepDates(text: string): ReactNode {
  const parts = text.split(DATE);
  if (parts.length === 1) return text;
  return parts.map((part, i) => (i % 2 === 1
    ? <span key={i} className="rg-date">{part}</span>
    : <Fragment key={i}>{part}</Fragment>));
}

import { useCallback, useMemo, useState } from 'react';
import type { Message } from '../api/errors';

export type Errors<F extends string> = Partial<Record<F, Message | null>>;

/**
 * Form values with the rule messages shown after a field is touched (blur, or a
 * submit attempt touches all). Server field errors (`data.field`) are passed in by
 * the form and shown on their field until that field changes.
 */
export function useForm<F extends string>(initial: Record<F, string>, validate: (values: Record<F, string>) => Errors<F>) {
  const [values, setValues] = useState(initial);
  const [touched, setTouched] = useState<Partial<Record<F, boolean>>>({});
  const errors = useMemo(() => validate(values), [validate, values]);

  const set = useCallback((name: F, value: string) => {
    setValues((prev) => ({ ...prev, [name]: value }));
  }, []);
  const touch = useCallback((name: F) => setTouched((prev) => (prev[name] ? prev : { ...prev, [name]: true })), []);
  const touchAll = useCallback(() => {
    setTouched(Object.fromEntries(Object.keys(initial).map((k) => [k, true])) as Record<F, boolean>);
  }, [initial]);

  const valid = Object.values(errors).every((e) => !e);
  const shown = (name: F): Message | null => (touched[name] ? (errors[name] ?? null) : null);
  return { values, set, touch, touchAll, touched, errors, shown, valid, setValues };
}

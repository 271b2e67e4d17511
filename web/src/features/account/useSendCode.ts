import { useEffect, useRef } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useCountdown } from '../../shared/useCountdown';
import { formsActions } from './formsSlice';
import { selectForm } from './selectors';

/** sendcode under a form id; the 60 s countdown starts when the send succeeds. */
export function useSendCode(id: string) {
  const dispatch = useAppDispatch();
  const form = useAppSelector(selectForm(id));
  const countdown = useCountdown();
  const seen = useRef(form.successes);
  const { start } = countdown;

  useEffect(() => {
    if (form.successes > seen.current) start();
    seen.current = form.successes;
  }, [form.successes, start]);
  useEffect(() => () => void dispatch(formsActions.reset(id)), [dispatch, id]);

  const send = (params: Record<string, unknown>) => {
    if (form.status === 'pending' || countdown.running) return;
    dispatch(formsActions.submitted({ id, path: 'sendcode', params }));
  };
  const data = form.data as { uid?: string } | null;
  return { send, sending: form.status === 'pending', error: form.error, sent: form.successes > 0, uid: data?.uid ?? '', ...countdown };
}

/** A form's state plus its submit, reset when the form unmounts. */
export function useFormCall(id: string) {
  const dispatch = useAppDispatch();
  const form = useAppSelector(selectForm(id));
  useEffect(() => () => void dispatch(formsActions.reset(id)), [dispatch, id]);
  return { ...form, pending: form.status === 'pending', submit: (req: Omit<Parameters<typeof formsActions.submitted>[0], 'id'>) => dispatch(formsActions.submitted({ id, ...req })) };
}

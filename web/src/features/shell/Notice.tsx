import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { uiActions } from './uiSlice';

export const NOTICE_MS = 4000;

/** The warning or info toast (forced logout, 'Please log out and register again!' ...). */
export function NoticeToast() {
  const t = useT();
  const dispatch = useAppDispatch();
  const notice = useAppSelector((s) => s.ui.notice);
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => dispatch(uiActions.noticeDismissed()), notice.ms ?? NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice, dispatch]);
  if (!notice) return null;
  const text = notice.key ? t(notice.key, ...(notice.args ?? [])) : (notice.text ?? '');
  return (
    <div className={`toast toast--${notice.kind}`} role="alert" data-testid="notice" onClick={() => dispatch(uiActions.noticeDismissed())}>
      {text}
    </div>
  );
}

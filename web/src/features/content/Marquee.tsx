import { useEffect, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { useT } from '../i18n/useT';
import { fetchNotices, type NoticeItem } from './api';
import './content.css';

/** Notices are read again this often (a new one shows without a reload). */
export const NOTICE_REFRESH_MS = 60_000;

/** The header's scrolling notice marquee (spec 001 section 2.3): `about/notices` data.msgList[].content. */
export function Marquee() {
  const t = useT();
  const lang = useAppSelector((s) => s.i18n.lang) ?? 'zhh';
  const [notices, setNotices] = useState<NoticeItem[]>([]);
  useEffect(() => {
    let live = true;
    const load = () => fetchNotices(lang).then((list) => live && setNotices(list)).catch(() => undefined);
    void load();
    const timer = setInterval(load, NOTICE_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [lang]);
  if (notices.length === 0) return null;
  const text = notices.map((n) => n.content).join('　　•　　');
  // the animation runs longer for longer text so it reads at the same speed
  const seconds = Math.max(12, Math.round(text.length / 4));
  return (
    <div className="marquee" role="marquee" aria-label={t('content.notices')} data-testid="marquee">
      <svg className="marquee__icon" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2"
        strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
        <path d="M3 11v2a1 1 0 0 0 1 1h2l5 4V6L6 10H4a1 1 0 0 0-1 1z" /><path d="M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13" />
      </svg>
      <div className="marquee__track">
        <span className="marquee__text" style={{ animationDuration: `${seconds}s` }} data-testid="marquee-text">{text}</span>
      </div>
    </div>
  );
}

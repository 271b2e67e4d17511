import { useEffect, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { isNativeApp, Link } from '../../app/router';
import { useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { fetchCover, fetchPopups, type Cover } from './api';
import {
  coverDue, DOWNLOAD_BANNER_MS, nextPopup, readCoverFetched, readShown, rememberCoverFetched, rememberShown, type RuntimePopup,
} from './popupSchedule';
import './content.css';

/**
 * Runtime popups (spec 001 sections 2.12, 4, 9): generic message, template and iframe
 * popups by audience and repeat, the last-shown time kept per browser; then the cover
 * popup, fetched at most once an hour.
 */
export function RuntimePopups() {
  const t = useT();
  const lang = useAppSelector((s) => s.i18n.lang) ?? 'zhh';
  const loggedIn = useAppSelector(selectLoggedIn);
  const [popup, setPopup] = useState<RuntimePopup | null>(null);
  const [cover, setCover] = useState<Cover | null>(null);
  useEffect(() => {
    let live = true;
    fetchPopups(lang)
      .then((list) => {
        if (!live) return;
        const now = Date.now();
        const due = nextPopup(list, loggedIn, readShown(), now);
        if (due) {
          rememberShown(due.id, now);
          setPopup(due);
        }
      })
      .catch(() => undefined);
    const now = Date.now();
    if (coverDue(readCoverFetched(), now)) {
      rememberCoverFetched(now);
      fetchCover(lang)
        .then((c) => live && (c.img || (c.gameinfo && c.gameinfo.length > 0)) && setCover(c))
        .catch(() => undefined);
    }
    return () => void (live = false);
  }, [lang, loggedIn]);

  if (popup) return <PopupView popup={popup} onClose={() => setPopup(null)} />;
  if (cover) {
    return (
      <div className="overlay" role="dialog" aria-modal="true" aria-label={t('content.cover')} data-testid="cover-popup">
        <div className="cpop">
          <button type="button" className="cpop__close" aria-label={t('common.close')} onClick={() => setCover(null)}>×</button>
          {cover.img ? (
            cover.link ? <Link href={cover.link} onClick={() => setCover(null)}><img className="cpop__img" src={cover.img} alt={cover.title ?? ''} /></Link>
              : <img className="cpop__img" src={cover.img} alt={cover.title ?? ''} />
          ) : (
            <>
              <h2 className="cpop__title">{cover.title || t('content.cover')}</h2>
              <ul className="cpop__games">
                {(cover.gameinfo ?? []).map((g, i) => (
                  <li key={i}><strong>{g.HomeTeamName}</strong> <span>vs</span> <strong>{g.AwayTeamName}</strong><em>{g.MatchStartDateGMT}</em></li>
                ))}
              </ul>
            </>
          )}
        </div>
      </div>
    );
  }
  return null;
}

function PopupView({ popup, onClose }: { popup: RuntimePopup; onClose: () => void }) {
  const t = useT();
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label={popup.title} data-testid="runtime-popup">
      <div className={`cpop cpop--${popup.style ?? 'message'}`}>
        <button type="button" className="cpop__close" aria-label={t('common.close')} onClick={onClose}>×</button>
        <h2 className="cpop__title">{popup.title}</h2>
        {popup.style === 'iframe' && popup.url ? (
          <iframe className="cpop__frame" src={popup.url} title={popup.title} sandbox="allow-scripts allow-same-origin allow-popups" />
        ) : (
          <>
            {popup.style === 'template' && popup.img && <img className="cpop__img" src={popup.img} alt="" />}
            <p className="cpop__text">{popup.content}</p>
            {popup.style === 'template' && popup.link && <Link className="btn btn--gold" href={popup.link} onClick={onClose}>{t('content.more')}</Link>}
          </>
        )}
        <button type="button" className="btn btn--gold cpop__ok" onClick={onClose}>{t('common.confirm')}</button>
      </div>
    </div>
  );
}

/** The download-app banner (spec 001 sections 2.4, 4, 9): not in native-app mode; hides after 60 s or on close. */
export function DownloadBanner() {
  const t = useT();
  const [open, setOpen] = useState(() => !isNativeApp());
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(() => setOpen(false), DOWNLOAD_BANNER_MS);
    return () => clearTimeout(timer);
  }, [open]);
  if (!open) return null;
  return (
    <div className="dlbar" data-testid="download-banner">
      <button type="button" className="dlbar__close" aria-label={t('common.close')} data-testid="download-banner-close" onClick={() => setOpen(false)}>×</button>
      <span className="dlbar__text">{t('content.download_text')}</span>
      <Link className="btn btn--gold dlbar__btn" href="/downpage" onClick={() => setOpen(false)}>{t('content.download')}</Link>
    </div>
  );
}

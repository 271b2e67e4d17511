import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link, footerVisible, isNativeApp, scrollToTop, usePathname } from '../../app/router';
import { UpIcon } from '../../components/icons';
import { ODDS_FORMATS, type OddsFormat } from '../../shared/odds';
import { useT } from '../i18n/useT';
import { SAFER_PATH } from '../safer/paths';
import { selectConnection } from '../live/selectors';
import { sportActions } from '../sport/sportSlice';

/** Footer (spec 001 section 2.4): odds format, back to top, the safer gambling page, and the data-source tag. */
export function Footer() {
  const t = useT();
  const dispatch = useAppDispatch();
  const pathname = usePathname();
  const format = useAppSelector((s) => s.sport.oddsFormat);
  const connection = useAppSelector(selectConnection);
  if (!footerVisible(pathname, isNativeApp())) return null;
  return (
    <footer className="footer" data-testid="footer">
      <div className="footer__row">
        <label className="footer__odds">
          <span>{t('sport.odds_format')}</span>
          <select value={format} data-testid="odds-format" onChange={(e) => dispatch(sportActions.oddsFormatChosen(e.target.value as OddsFormat))}>
            {ODDS_FORMATS.map((f) => <option key={f} value={f}>{t(`odds.${f}`)}</option>)}
          </select>
        </label>
        <button type="button" className="footer__top" onClick={() => scrollToTop()} data-testid="back-to-top">
          <UpIcon width={16} height={16} /> {t('footer.back_to_top')}
        </button>
      </div>
      <p className="footer__meta">
        <Link href={SAFER_PATH} className="footer__link" data-testid="footer-safer">{t('rg.footer')}</Link>
        <span className="demo-tag" title={t('sport.demo_feed_hint')} data-testid="demo-feed">{t('sport.demo_feed')}</span>
        <span className={`conn conn--${connection}`} data-testid="connection">{t(`live.connection.${connection}`)}</span>
      </p>
    </footer>
  );
}

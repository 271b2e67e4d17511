/**
 * The season banner on the competition page (spec 001 section 2.10): the season number,
 * days remaining, end date and a button to the brand-prefixed season page; shown only once
 * the season has started, has an end time, and at least 1 day remains (`bannerDays`).
 */
import { useEffect, useState } from 'react';
import { apiPost } from '../../api';
import { useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { selectBrand } from '../config/selectors';
import { useT } from '../i18n/useT';
import { bannerDays, type SeasonInfo } from './model';
import './seasons.css';

export function SeasonBanner() {
  const t = useT();
  const brand = useAppSelector(selectBrand);
  // the season and the time it was read: the days left count from then
  const [loaded, setLoaded] = useState<{ info: SeasonInfo; at: number } | null>(null);
  useEffect(() => {
    let live = true;
    apiPost<SeasonInfo>('vipsystem/seasoninfo')
      .then((data) => live && setLoaded({ info: data, at: Date.now() }))
      .catch(() => live && setLoaded(null));
    return () => {
      live = false;
    };
  }, []);
  const info = loaded?.info ?? null;
  const days = loaded ? bannerDays(loaded.info, loaded.at) : null;
  if (days === null || !info) return null;
  const prefix = brand.replace(/[^A-Za-z0-9]/g, '') || 'seasonMission';
  const href = prefix === 'seasonMission' ? '/seasonMission' : `/${prefix}Season`;
  return (
    <div className="season-banner" data-testid="season-banner">
      <span>{t('season.banner', String(info.seasonid ?? ''), String(days), (info.endtime ?? '').slice(0, 10))}</span>
      <Link href={href} className="btn btn--gold">{t('season.banner_go')}</Link>
    </div>
  );
}

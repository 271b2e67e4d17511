/**
 * /usdthelp (spec 001 section 2.1, a Chinese page): how to deposit USDT, with the live figures
 * of the member's USDT channel (limits, chains and their confirmations, the rate: docs/payments.md)
 * when logged in. Other languages get the fallback page, as /news.
 */
import { useEffect, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { EmptyState } from '../shell/EmptyState';
import { uiActions } from '../shell/uiSlice';
import { payApi, type Channels } from './api';
import { Rows } from './parts';

/** The live figures of the USDT channel: null until known (or for visitors). */
function useUsdtFigures() {
  const loggedIn = useAppSelector(selectLoggedIn);
  const [figures, setFigures] = useState<{ channels: Channels; rate: string } | null>(null);
  useEffect(() => {
    if (!loggedIn) return;
    let live = true;
    Promise.all([payApi.channels(), payApi.rate('100')])
      .then(([channels, quote]) => live && setFigures({ channels, rate: quote.rate }))
      .catch(() => live && setFigures(null));
    return () => { live = false; };
  }, [loggedIn]);
  return figures;
}

export const USDT_STEPS = 4;
export const USDT_FAQ = 3;

export function UsdtHelpPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const lang = useAppSelector((s) => s.i18n.lang);
  const loggedIn = useAppSelector(selectLoggedIn);
  const figures = useUsdtFigures();
  if (lang !== 'zhh') return <EmptyState textKey="empty.page_not_found" />;
  const usdt = figures?.channels.channels.find((c) => c.channel === 'usdt');
  const currency = figures?.channels.currency ?? '';
  return (
    <section className="card pay usdthelp" data-testid="usdthelp-page">
      <header className="usdthelp__hero">
        <span className="usdthelp__coin" aria-hidden="true">₮</span>
        <div>
          <h1 className="card__title">{t('usdthelp.title')}</h1>
          <p>{t('usdthelp.what')}</p>
        </div>
      </header>
      <h2 className="usdthelp__h2">{t('usdthelp.steps_title')}</h2>
      <ol className="usdthelp__steps">
        {Array.from({ length: USDT_STEPS }, (_, i) => (
          <li key={i}><b>{t(`usdthelp.step${i + 1}_title`)}</b><span>{t(`usdthelp.step${i + 1}`)}</span></li>
        ))}
      </ol>
      <h2 className="usdthelp__h2">{t('usdthelp.chains_title')}</h2>
      <p className="usdthelp__warn" role="note">{t('usdthelp.chains_warn')}</p>
      {figures ? (
        <Rows rows={[
          [t('usdthelp.rate'), `1 USDT ≈ ${figures.rate} ${currency}`],
          ...(usdt ? [[t('usdthelp.limits'), `${usdt.min} - ${usdt.max} ${currency}`] as [string, string]] : []),
          ...figures.channels.chains.map((c): [string, string] => [c.chain, t('usdthelp.confirmations', c.confirmations)]),
        ]} />
      ) : !loggedIn ? (
        <p className="usdthelp__muted">
          {t('usdthelp.login_for_rate')}{' '}
          <button type="button" className="usdthelp__login" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>{t('header.login')}</button>
        </p>
      ) : null}
      <h2 className="usdthelp__h2">{t('usdthelp.faq_title')}</h2>
      <dl className="usdthelp__faq">
        {Array.from({ length: USDT_FAQ }, (_, i) => (
          <div key={i}><dt>{t(`usdthelp.q${i + 1}`)}</dt><dd>{t(`usdthelp.a${i + 1}`)}</dd></div>
        ))}
      </dl>
      <div className="usdthelp__actions">
        <Link href="/usercenter/deposit" className="btn btn--gold btn--block" data-testid="usdthelp-deposit">{t('usdthelp.deposit_now')}</Link>
        <Link href="/usercenter/withdraw/addusdt" className="btn btn--ghost-dark btn--block">{t('usdthelp.add_address')}</Link>
      </div>
    </section>
  );
}

import { useEffect, useEffectEvent, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { startText } from '../../shared/time';
import { useT } from '../i18n/useT';
import { EmptyState } from '../shell/EmptyState';
import { fetchHelpList, fetchHelpPage, fetchIndexBanners, fetchNews, fetchNewsItem, type BannerItem, type HelpItem, type NewsItem } from './api';
import './content.css';

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * A call's answer as a page's state: undefined while loading (again when `deps` change), null
 * on failure. The answer is kept with the deps it was asked for, so new deps read as loading
 * without resetting state in the effect.
 */
function useLoad<T>(load: () => Promise<T>, deps: (string | number | undefined)[]): T | null | undefined {
  const key = JSON.stringify(deps);
  const [answer, setAnswer] = useState<{ key: string; value: T | null } | null>(null);
  const call = useEffectEvent(load);
  useEffect(() => {
    let live = true;
    call().then((v) => live && setAnswer({ key, value: v })).catch(() => live && setAnswer({ key, value: null }));
    return () => void (live = false);
  }, [key]);
  return answer?.key === key ? answer.value : undefined;
}

const Loading = () => <div className="page-loading" aria-busy="true" />;

/** /news (Chinese only; spec 001 section 2.1): articles by type. */
export function NewsList() {
  const t = useT();
  const lang = useAppSelector((s) => s.i18n.lang);
  const [type, setType] = useState(0);
  const list = useLoad(() => fetchNews(type || undefined), [type]);
  if (lang !== 'zhh') return <EmptyState textKey="empty.page_not_found" />;
  return (
    <section className="cpage" data-testid="news-page">
      <h1 className="cpage__title">{t('content.news')}</h1>
      <div className="cpage__tabs" role="tablist">
        {[0, 1, 2, 3].map((n) => (
          <button key={n} type="button" role="tab" aria-selected={type === n} className={type === n ? 'tab is-active' : 'tab'} onClick={() => setType(n)}>
            {t(`content.news_type.${n}`)}
          </button>
        ))}
      </div>
      {list === undefined && <Loading />}
      {list === null && <EmptyState />}
      {list && list.length === 0 && <EmptyState />}
      {list && list.length > 0 && (
        <ul className="news">
          {list.map((n: NewsItem) => (
            <li key={n.id} className="news__item">
              <Link href={`/news/${n.id}`} className="news__link" data-testid={`news-${n.id}`}>
                {n.img && <img className="news__img" src={n.img} alt="" />}
                <span className="news__text"><strong>{n.title}</strong>{n.summary && <span>{n.summary}</span>}<em>{startText(seconds(n.created), lang)}</em></span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** /news/{id}: one article. */
export function NewsDetail({ id }: { id: number }) {
  const lang = useAppSelector((s) => s.i18n.lang);
  const item = useLoad(() => fetchNewsItem(id), [id]);
  if (lang !== 'zhh') return <EmptyState textKey="empty.page_not_found" />;
  if (item === undefined) return <Loading />;
  if (!item) return <EmptyState textKey="empty.page_not_found" />;
  return (
    <article className="cpage article" data-testid="news-article">
      <h1 className="cpage__title">{item.title}</h1>
      <p className="article__date">{startText(seconds(item.created), lang)}</p>
      {item.img && <img className="article__img" src={item.img} alt="" />}
      <div className="article__body">{paragraphs(item.content ?? '')}</div>
    </article>
  );
}

const paragraphs = (text: string) => text.split(/\n{2,}|\r\n\r\n/).map((p, i) => <p key={i}>{p}</p>);

/** /helpcenter: the help pages of the language, each opening /page/help-root-{language}/{title}. */
export function HelpCenter() {
  const t = useT();
  const lang = useAppSelector((s) => s.i18n.lang) ?? 'zhh';
  const list = useLoad(() => fetchHelpList(lang), [lang]);
  return (
    <section className="cpage" data-testid="help-center">
      <h1 className="cpage__title">{t('content.help')}</h1>
      {list === undefined && <Loading />}
      {(list === null || (list && list.length === 0)) && <EmptyState />}
      {list && list.length > 0 && (
        <ul className="help-list">
          {list.map((h: HelpItem) => (
            <li key={h.id}><Link href={`/page/help-root-${lang}/${h.slug}`} data-testid={`help-${h.slug}`}>{h.title}</Link></li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The registration agreement's page, shown from the language file until the desk writes one. */
export const AGREEMENT_SLUG = 'general-terms-and-conditions';

/** /page/help-root-{language}/{title} (opened in a new tab from the registration agreement link). */
export function HelpPage({ lang, slug }: { lang: string; slug: string }) {
  const t = useT();
  const page = useLoad(() => fetchHelpPage(lang, slug), [lang, slug]);
  if (page === undefined) return <Loading />;
  if (!page && slug === AGREEMENT_SLUG) {
    return (
      <article className="cpage article" data-testid="help-page">
        <h1 className="cpage__title">{t('register.agreement')}</h1>
        <h3>{t('terms.account_title')}</h3><p>{t('terms.account')}</p>
        <h3>{t('terms.withdrawal_title')}</h3><p>{t('terms.withdrawal')}</p>
        <h3>{t('terms.preferential_title')}</h3><p>{t('terms.preferential')}</p>
      </article>
    );
  }
  if (!page) return <EmptyState textKey="empty.page_not_found" />;
  return (
    <article className="cpage article" data-testid="help-page">
      <h1 className="cpage__title">{page.title}</h1>
      <div className="article__body">{paragraphs(page.content ?? '')}</div>
    </article>
  );
}

/** /downpage: the app download page (a stand-in: no app store links exist here). */
export function DownPage() {
  const t = useT();
  return (
    <section className="cpage downpage" data-testid="downpage">
      <h1 className="cpage__title">{t('content.download')}</h1>
      <p>{t('content.download_text')}</p>
      <p className="downpage__note">{t('content.download_standin')}</p>
      <Link href="/" className="btn btn--gold">{t('menu.home')}</Link>
    </section>
  );
}

/** The home page's banners (`indexbannerslist`); nothing when the desk has none. */
export function IndexBanners() {
  const lang = useAppSelector((s) => s.i18n.lang) ?? 'zhh';
  const list = useLoad(() => fetchIndexBanners(lang), [lang]);
  const [at, setAt] = useState(0);
  const [broken, setBroken] = useState<number[]>([]);
  const shown = (list ?? []).filter((b) => !broken.includes(b.id));
  useEffect(() => {
    if (shown.length < 2) return;
    const timer = setInterval(() => setAt((n) => n + 1), 5000);
    return () => clearInterval(timer);
  }, [shown.length]);
  if (shown.length === 0) return null;
  const banner: BannerItem = shown[at % shown.length]!;
  // an image that does not load leaves the rotation instead of showing a broken frame
  const img = <img className="banners__img" src={banner.img} alt={banner.title} onError={() => setBroken((b) => [...b, banner.id])} />;
  return (
    <div className="banners" data-testid="index-banners">
      {banner.link ? <Link href={banner.link}>{img}</Link> : img}
      {shown.length > 1 && (
        <div className="banners__dots">
          {shown.map((b, i) => <button key={b.id} type="button" aria-label={b.title || String(i + 1)} className={i === at % shown.length ? 'dot is-active' : 'dot'} onClick={() => setAt(i)} />)}
        </div>
      )}
    </div>
  );
}

import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { zoneLabel } from '../../shared/time';
import { i18nActions } from './i18nSlice';
import { useT } from './useT';
import './language.css';

/**
 * The language switcher (spec 000 sections 1 and 9): the skin's languages (zhh, eng, tha) by their own
 * names; a choice is remembered and the page reloads in it 500 ms later. Times follow the language's
 * zone (Asia/Bangkok but for zhh), named under the list.
 */
export function LanguageSwitcher() {
  const t = useT();
  const dispatch = useAppDispatch();
  const languages = useAppSelector((s) => s.config.conf?.languages ?? []);
  const current = useAppSelector((s) => s.i18n.lang);
  const switching = useAppSelector((s) => s.i18n.switchingTo ?? null);
  if (languages.length < 2) return null;
  return (
    <section className="lang-switch" aria-label={t('lang.title')} data-testid="language-switcher">
      <h3 className="lang-switch__title">{t('lang.title')}</h3>
      <div className="lang-switch__list" role="radiogroup" aria-label={t('lang.title')}>
        {languages.map((lang) => {
          const active = (switching ?? current) === lang;
          return (
            <button key={lang} type="button" role="radio" aria-checked={active} lang={lang === 'zhh' ? 'zh-Hans' : lang === 'tha' ? 'th' : 'en'}
              className={active ? 'lang-switch__item is-active' : 'lang-switch__item'} data-testid={`lang-${lang}`}
              disabled={switching !== null} onClick={() => dispatch(i18nActions.switchRequested(lang))}>
              {t(`lang.${lang}`)}
            </button>
          );
        })}
      </div>
      <p className="lang-switch__note" data-testid="language-note">
        {switching !== null ? t('lang.switching') : t('lang.time_zone', zoneLabel(current))}
      </p>
    </section>
  );
}

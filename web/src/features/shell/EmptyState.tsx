import { useT } from '../i18n/useT';

/** Empty-state view (spec section 2): 'No Data' by default, or 'Page not found'. */
export function EmptyState({ textKey = 'empty.no_data' }: { textKey?: string }) {
  const t = useT();
  return (
    <div className="empty" data-testid="empty-state">
      <svg className="empty__icon" viewBox="0 0 64 64" aria-hidden="true">
        <rect x="10" y="16" width="44" height="34" rx="6" />
        <path d="M10 28h44M22 38h20" />
      </svg>
      <p>{t(textKey)}</p>
    </div>
  );
}

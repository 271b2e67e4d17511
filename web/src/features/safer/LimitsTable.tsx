/**
 * The deposit, loss and stake limits of each period: the amount, what the current period has
 * used of it, and a change that waits its 24 hours. The member's page (with a button per row
 * that picks it in the form) and the back office's member view draw the same table.
 */
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { keepDates } from './dates';
import { limitRows, pendingMessage, usedShare, type LimitKind, type LimitPeriod, type RgLimit } from './model';
import './safer.css';

export function LimitsTable({ limits, currency, onChoose }: {
  limits: readonly RgLimit[]; currency: string; onChoose?: (kind: LimitKind, period: LimitPeriod) => void;
}) {
  const t = useT();
  const unit = currency ? ` ${currency}` : '';
  return (
    <div className="rg-kinds" data-testid="rg-limits">
      {limitRows(limits).map(({ kind, periods }) => (
        <div className="rg-kind" key={kind} data-testid={`rg-kind-${kind}`}>
          <h3 className="rg-kind__title">{t(`rg.kind.${kind}`)}</h3>
          {periods.map(({ period, limit }) => {
            const pending = limit ? pendingMessage(limit) : null;
            const share = limit ? usedShare(limit) : 0;
            return (
              <div className="rg-limit" key={period} data-testid={`rg-limit-${kind}-${period}`} data-set={limit ? 'yes' : 'no'}>
                <div className="rg-limit__head">
                  <span className="rg-limit__period">{t(`rg.period.${period}`)}</span>
                  <b className="rg-limit__amount" data-testid="rg-limit-amount">
                    {limit ? `${formatMoney(limit.amount)}${unit}` : t('rg.limits.none')}
                  </b>
                  {onChoose && (
                    <button type="button" className="rg-limit__edit" data-testid="rg-limit-choose" onClick={() => onChoose(kind, period)}>
                      {t(limit ? 'rg.limits.change' : 'rg.limits.set')}
                    </button>
                  )}
                </div>
                {limit && (
                  <>
                    <div className={share >= 1 ? 'rg-bar is-full' : 'rg-bar'} role="progressbar" aria-valuemin={0} aria-valuemax={100}
                      aria-valuenow={Math.round(share * 100)} aria-label={t('rg.limits.used_label')}>
                      <span style={{ width: `${share * 100}%` }} />
                    </div>
                    <small className="rg-limit__used" data-testid="rg-limit-used">
                      {t('rg.limits.used', formatMoney(limit.used), formatMoney(limit.amount))}
                    </small>
                  </>
                )}
                {pending && <small className="rg-limit__pending" data-testid="rg-limit-pending">{keepDates(t(pending.key, ...pending.args))}</small>}
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}

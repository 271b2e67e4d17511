import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { TYPE_KEYS } from '../history/model';
import { useT } from '../i18n/useT';
import { backofficeActions as bo, selectBackoffice, type QueueFilter } from './backofficeSlice';
import { ErrorBox, Loading, Panel, StatusBadge, SuperBadge, Time, money, odds } from './parts';
import { sectionPath } from './roles';
import { selectionOf, type QueueItem } from './types';

const FILTERS: QueueFilter[] = ['open', 'all'];

/** The counter-offer queue, oldest first, reloaded every 5 s while shown. */
export function QueuePage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const queue = useAppSelector((s) => selectBackoffice(s).queue);
  useEffect(() => {
    dispatch(bo.queueWatchStarted());
    return () => void dispatch(bo.queueWatchStopped());
  }, [dispatch]);
  return (
    <Panel title={t('bo.queue.title')} testId="bo-queue"
      actions={
        <div className="bo-chips" role="radiogroup" aria-label={t('bo.queue.title')}>
          {FILTERS.map((f) => (
            <button key={f} type="button" role="radio" aria-checked={queue.filter === f} data-testid={`bo-queue-filter-${f}`}
              className={queue.filter === f ? 'bo-chip is-active' : 'bo-chip'} onClick={() => dispatch(bo.queueFilterChosen(f))}>
              {t(`bo.queue.${f}`)}
            </button>
          ))}
        </div>
      }>
      <p className="bo-muted">{t('bo.queue.auto')}{queue.updatedAt && <> · <Time value={queue.updatedAt} /></>}</p>
      <ErrorBox error={queue.error} />
      {queue.status === 'loading' && queue.list.length === 0 ? (
        <Loading />
      ) : queue.list.length === 0 && queue.status === 'ready' ? (
        <p className="bo-empty" data-testid="bo-queue-empty">{t('bo.queue.empty')}</p>
      ) : (
        <ul className="bo-cards">
          {queue.list.map((item) => <QueueCard key={String(item.bet_id)} item={item} />)}
        </ul>
      )}
    </Panel>
  );
}

function QueueCard({ item }: { item: QueueItem }) {
  const t = useT();
  return (
    <li className="bo-card" data-testid="bo-queue-item" data-bet={String(item.bet_id)}>
      <Link href={sectionPath('queue', item.bet_id)} className="bo-card__link" data-testid="bo-queue-open">
        <div className="bo-card__head">
          <strong>#{item.bet_id}</strong>
          <span className="bo-card__badges"><StatusBadge status={item.status} /><SuperBadge status={item.super_bet_status} /></span>
        </div>
        <div className="bo-card__member">{item.username} <span className="bo-muted">({t('bo.user_id')} {item.user_id})</span></div>
        <dl className="bo-facts">
          <dt>{t('bo.col.type')}</dt><dd>{t(TYPE_KEYS[item.type] ?? 'betslip.type.single')}</dd>
          <dt>{t('bo.col.stake')}</dt><dd>{money(item.amount)} {item.currency}</dd>
          <dt>{t('bo.col.odds')}</dt><dd>{odds(item.k)}</dd>
          <dt>{t('bo.col.possible_win')}</dt><dd>{money(item.possible_win)}</dd>
          <dt>{t('bo.col.placed')}</dt><dd><Time value={item.placed_at} /></dd>
        </dl>
        <ul className="bo-selections">
          {(item.events ?? []).map(selectionOf).map((e) => (
            <li key={e.key}><span>{e.selection} <em>@{odds(e.price)}</em></span><span className="bo-muted">{e.market} · {e.game}</span></li>
          ))}
        </ul>
        {item.counter_offer && (
          <p className="bo-offered" data-testid="bo-queue-offered">
            {t('bo.detail.offered')}: {item.counter_offer.amount ? `${money(item.counter_offer.amount)} ${item.currency}` : ''}
            {item.counter_offer.price ? ` @${odds(item.counter_offer.price)}` : ''}
          </p>
        )}
      </Link>
    </li>
  );
}

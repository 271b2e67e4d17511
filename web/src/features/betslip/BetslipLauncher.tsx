import { Suspense } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { useT } from '../i18n/useT';
import { ChunkBoundary } from '../shell/ChunkBoundary';
import { betslipActions } from './betslipSlice';
import { QuickBetBar } from './QuickBetBar';
import { selectBetSuccess, selectSlipCount, selectSlipOpen } from './selectors';

// The betslip UI and the success popup load on first use (first-load bundle budget).
const BetslipPanel = lazyRetry(() => import('./BetslipPanel').then((m) => ({ default: m.BetslipPanel })));
const BetSuccessPopup = lazyRetry(() => import('./BetSuccessPopup').then((m) => ({ default: m.BetSuccessPopup })));

/** The floating betslip button with the pick count (sport pages), and the slip itself when open. */
export function BetslipLauncher({ visible }: { visible: boolean }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const count = useAppSelector(selectSlipCount);
  const open = useAppSelector(selectSlipOpen);
  const success = useAppSelector(selectBetSuccess);
  const quick = useAppSelector((s) => s.betslip.quickBet);
  // as the success popup's own close: it closes the slip too
  const close = () => {
    if (success) dispatch(betslipActions.successClosed());
    dispatch(betslipActions.closed());
  };
  return (
    <>
      {visible && !open && (
        <button type="button" className={count > 0 ? 'slip-fab has-picks' : 'slip-fab'} data-testid="betslip-button"
          aria-label={t('betslip.title')} onClick={() => dispatch(betslipActions.opened())}>
          <span className="slip-fab__label">{quick ? t('betslip.quick_bet') : t('betslip.title')}</span>
          <span className="slip-fab__count" data-testid="betslip-count">{count}</span>
        </button>
      )}
      {visible && !open && <QuickBetBar />}
      <QuickBetNotices />
      {(open || success) && (
        <ChunkBoundary key={success ? 'success' : 'slip'} overlay onClose={close}>
          <Suspense fallback={null}>
            {open && !success && <BetslipPanel />}
            {success && <BetSuccessPopup />}
          </Suspense>
        </ChunkBoundary>
      )}
    </>
  );
}

/** Quick-bet outcomes, each for 5 s (spec 000 section 9). */
function QuickBetNotices() {
  const t = useT();
  const dispatch = useAppDispatch();
  const notices = useAppSelector((s) => s.betslip.quickBetNotifications);
  if (notices.length === 0) return null;
  return (
    <div className="quick-notices" data-testid="quick-bet-notices">
      {notices.map((n) => (
        <button type="button" key={n.id} className={`quick-notice quick-notice--${n.kind}`}
          onClick={() => dispatch(betslipActions.quickBetNoticeDismissed(n.id))}>
          {n.key ? t(n.key, ...(n.args ?? [])) : n.text}
        </button>
      ))}
    </div>
  );
}

import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { RefreshIcon, UserIcon } from '../../components/icons';
import { useT } from '../i18n/useT';
import { selectDisplayName, selectLoggedIn } from '../session/selectors';
import { uiActions } from '../shell/uiSlice';
import { balanceActions } from './balanceSlice';
import { selectBalanceLoading, selectBalanceView } from './selectors';

/** Header balance area: the balance for members, login and register for guests. */
export function Balance() {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  const name = useAppSelector(selectDisplayName);
  const view = useAppSelector(selectBalanceView);
  const loading = useAppSelector(selectBalanceLoading);

  if (!loggedIn) {
    return (
      <div className="auth-buttons" data-testid="auth-buttons">
        <button type="button" className="btn btn--ghost btn--sm" data-testid="open-login"
          onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>
          {t('header.login')}
        </button>
        <button type="button" className="btn btn--gold btn--sm" data-testid="open-register"
          onClick={() => dispatch(uiActions.popupRequested({ name: 'register', step: 0 }))}>
          {t('header.register')}
        </button>
      </div>
    );
  }

  if (!view) {
    return <div className="balance balance--skeleton" aria-busy="true" aria-label={t('balance.label')} />;
  }

  return (
    <div className="balance" aria-label={t('balance.label')}>
      <div className="balance__text">
        <span className="balance__user" data-testid="balance-username">
          <UserIcon width={12} height={12} />
          {name}
        </span>
        <span className="balance__amount">
          <span data-testid="balance">{view.amount}</span>
          <span className="balance__currency" data-testid="balance-currency">{view.currency}</span>
        </span>
      </div>
      <button
        type="button"
        className={loading ? 'balance__refresh is-spinning' : 'balance__refresh'}
        aria-label={t('balance.refresh')}
        disabled={loading}
        onClick={() => dispatch(balanceActions.refreshRequested())}
      >
        <RefreshIcon width={16} height={16} />
      </button>
    </div>
  );
}

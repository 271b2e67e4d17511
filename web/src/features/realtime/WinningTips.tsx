import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { TEXT_TIP, WIN_TIP, isBetSubject, realtimeActions, type Tip } from './realtimeSlice';

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** Title and body of a tip by type (spec 001 section 3, winning-tip notification). */
export function tipText(tip: Tip, t: (key: string, ...args: Array<string | number>) => string) {
  const d = tip.data;
  if (tip.type === TEXT_TIP && isBetSubject(d.subject)) {
    // machine subjects get a title from the language file, and a body from it where it has
    // one for the subject (the server's text is in one language); else the server's text
    const title = t(`tips.subject.${d.subject}`);
    if (d.subject === 'cashout') return { title, body: str(d.content) || t('tips.cashout', str(d.id), formatMoney(str(d.money) || '0')) };
    const bodyKey = `tips.body.${d.subject}`;
    const own = t(bodyKey, str(d.id));
    if (own !== bodyKey) return { title, body: own };
    return { title, body: str(d.content) || t('tips.bet', str(d.id)) };
  }
  // 1003 activity and 1005 'Warm tip' carry only text (spec 001 section 3): their own titles
  const title = tip.type === 1003 || tip.type === 1005 ? t(`tips.title.${tip.type}`) : str(d.subject) || t(`tips.title.${tip.type}`);
  switch (tip.type) {
    case WIN_TIP: {
      const bonus = Number(d.bonus ?? 0) > 0 ? t('tips.win_bonus', formatMoney(str(d.bonus))) : '';
      return { title, body: t('tips.win', str(d.id), formatMoney(str(d.money) || '0')) + bonus };
    }
    case 1000:
    case 1001:
      return { title, body: t('tips.money', str(d.orderid), formatMoney(str(d.money) || '0'), str(d.status)) };
    default:
      return { title, body: str(d.content) };
  }
}

/** The pop-over of realtime notifications; a 1004 win shows the payout. */
export function WinningTips() {
  const t = useT();
  const dispatch = useAppDispatch();
  const tip = useAppSelector((s) => s.realtime.tips[0]);
  if (!tip) return null;
  const { title, body } = tipText(tip, t);
  return (
    <div className={`tip tip--${tip.type === WIN_TIP ? 'win' : 'info'}`} role="status" data-testid="winning-tip">
      <strong className="tip__title">{title}</strong>
      <span className="tip__body">{body}</span>
      <button type="button" className="tip__close" aria-label={t('common.close')} onClick={() => dispatch(realtimeActions.tipDismissed(tip.id))}>×</button>
    </div>
  );
}

import type { SVGProps } from 'react';
import { useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { UserIcon } from '../../components/icons';
import { useT } from '../i18n/useT';
import { liveChat } from '../livechat/liveChat';
import { selectLoggedIn, selectProfile } from '../session/selectors';
import './headerIcons.css';

const base = {
  width: 20, height: 20, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor',
  strokeWidth: 2, strokeLinecap: 'round', strokeLinejoin: 'round', 'aria-hidden': true,
} as const;
const MessageIcon = (p: SVGProps<SVGSVGElement>) => (
  <svg {...base} {...p}><rect x="3" y="5" width="18" height="14" rx="2" /><path d="M3 7l9 6 9-6" /></svg>
);
const SupportIcon = (p: SVGProps<SVGSVGElement>) => (
  <svg {...base} {...p}><path d="M4 13v-1a8 8 0 0 1 16 0v1" /><rect x="3" y="13" width="4" height="6" rx="1.5" /><rect x="17" y="13" width="4" height="6" rx="1.5" /><path d="M19 19a3 3 0 0 1-3 3h-3" /></svg>
);
const TransferIcon = (p: SVGProps<SVGSVGElement>) => (
  <svg {...base} {...p}><path d="M4 8h14l-4-4M20 16H6l4 4" /></svg>
);

/**
 * The header icons of spec 000 section 2 / spec 001 section 2.3: profile and transfer for members;
 * messages (with the unread count) and the support chat for everyone.
 */
export function HeaderIcons() {
  const t = useT();
  const loggedIn = useAppSelector(selectLoggedIn);
  const unread = Number((useAppSelector(selectProfile) as { unread_count?: number | string } | null)?.unread_count ?? 0);
  return (
    <div className="header-icons">
      {loggedIn && (
        <>
          <Link href="/usercenter/transfer" className="icon-btn" aria-label={t('header.transfer')} data-testid="header-transfer"><TransferIcon /></Link>
          <Link href="/usercenter" className="icon-btn" aria-label={t('header.profile')} data-testid="header-profile"><UserIcon width={20} height={20} /></Link>
        </>
      )}
      <Link href="/messages" className="icon-btn header-icons__msg" aria-label={t('header.messages')} data-testid="header-messages">
        <MessageIcon />
        {loggedIn && unread > 0 && <span className="header-icons__badge" data-testid="unread-count">{unread > 99 ? '99+' : unread}</span>}
      </Link>
      <button type="button" className="icon-btn" aria-label={t('header.support')} data-testid="header-support" onClick={liveChat.open}>
        <SupportIcon />
      </button>
    </div>
  );
}

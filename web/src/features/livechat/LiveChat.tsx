import { ChatIcon } from '../../components/icons';
import { useT } from '../i18n/useT';
import { liveChat, useLiveChatOpen } from './liveChat';
import './livechat.css';

/**
 * The floating live-chat icon of the app shell (spec 000 section 2) and the online-service sheet it
 * opens (spec 001 section 3 popups). No chat service can be reached here: the sheet is labelled as a
 * stand-in (DESIGN.md "Out of reach here"); an operator's chat widget would open in its place.
 */
export function LiveChat({ floating }: { floating: boolean }) {
  const t = useT();
  const open = useLiveChatOpen();
  return (
    <>
      {floating && !open && (
        <button type="button" className="livechat-fab" data-testid="live-chat-button" aria-label={t('livechat.open')} onClick={liveChat.open}>
          <ChatIcon width={22} height={22} />
        </button>
      )}
      {open && (
        <div className="overlay overlay--sheet livechat-overlay" role="dialog" aria-modal="true" aria-label={t('livechat.title')} data-testid="live-chat">
          <button type="button" className="livechat-overlay__scrim" aria-label={t('common.close')} onClick={liveChat.close} />
          <div className="sheet livechat">
            <div className="sheet__head">
              <h2 className="sheet__title">{t('livechat.title')}</h2>
              <button type="button" className="sheet__close" aria-label={t('common.close')} data-testid="live-chat-close" onClick={liveChat.close}>×</button>
            </div>
            <div className="sheet__body livechat__body">
              <p className="livechat__bubble">{t('livechat.hours')}</p>
              <p className="livechat__standin" role="note">{t('livechat.standin')}</p>
            </div>
          </div>
        </div>
      )}
    </>
  );
}

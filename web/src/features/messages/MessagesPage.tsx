import { useEffect, useState } from 'react';
import { apiGet, apiPost, toErrorInfo } from '../../api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { startText } from '../../shared/time';
import { errorText, useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { sessionActions } from '../session/sessionSlice';
import { EmptyState } from '../shell/EmptyState';
import { uiActions } from '../shell/uiSlice';
import '../content/content.css';
import './messages.css';

/** One message of user/messages (docs/protocol.md); `created` in ms. */
export interface InboxMessage {
  id: number;
  type: number;
  title: string;
  content: string;
  created: number;
  read: boolean;
}

const seconds = (created: number) => (created > 1e12 ? Math.floor(created / 1000) : created);

/** /messages (spec 001 section 2): the member's messages, newest first; opening one marks it read. */
export function MessagesPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  const lang = useAppSelector((s) => s.i18n.lang);
  const [list, setList] = useState<InboxMessage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  useEffect(() => {
    if (!loggedIn) return;
    let live = true;
    apiGet<{ list: InboxMessage[] }>('user/messages')
      .then((data) => live && setList(Array.isArray(data?.list) ? data.list : []))
      .catch((err) => live && setError(errorText(t, toErrorInfo(err))));
    return () => void (live = false);
  }, [loggedIn, t]);

  if (!loggedIn) {
    return (
      <section className="messages" data-testid="messages-page">
        <h1 className="messages__title">{t('messages.title')}</h1>
        <p>{t('settings.login_first')}</p>
        <button type="button" className="btn btn--gold" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>{t('header.login')}</button>
      </section>
    );
  }
  const read = (m: InboxMessage) => {
    setOpen(open === m.id ? null : m.id);
    if (m.read) return;
    setList((l) => l?.map((x) => (x.id === m.id ? { ...x, read: true } : x)) ?? l);
    apiPost('user/messages', { id: m.id }).then(() => dispatch(sessionActions.profileRequested())).catch(() => undefined);
  };
  const remove = (m: InboxMessage) => {
    setList((l) => l?.filter((x) => x.id !== m.id) ?? l);
    setOpen(null);
    apiPost('user/messages', { id: m.id, action: 'delete' }).then(() => dispatch(sessionActions.profileRequested())).catch(() => undefined);
  };
  const readAll = () => {
    setList((l) => l?.map((x) => ({ ...x, read: true })) ?? l);
    apiPost('user/messages', { action: 'readall' }).then(() => dispatch(sessionActions.profileRequested())).catch(() => undefined);
  };
  return (
    <section className="messages" data-testid="messages-page">
      <h1 className="messages__title">{t('messages.title')}</h1>
      {list !== null && list.some((m) => !m.read) && (
        <button type="button" className="link messages__readall" data-testid="messages-readall" onClick={readAll}>{t('messages.read_all')}</button>
      )}
      {error && <p className="messages__error" role="alert">{error}</p>}
      {list === null && !error && <div className="page-loading" aria-busy="true" />}
      {list !== null && list.length === 0 && <EmptyState textKey="messages.empty" />}
      {list !== null && list.length > 0 && (
        <ul className="messages__list">
          {list.map((m) => (
            <li key={m.id} className={m.read ? 'msg' : 'msg is-unread'}>
              <button type="button" className="msg__head" aria-expanded={open === m.id} onClick={() => read(m)} data-testid={`message-${m.id}`}>
                <span className="msg__title">{m.title}</span>
                <span className="msg__date">{startText(seconds(m.created), lang)}</span>
              </button>
              {open === m.id && <p className="msg__body" data-testid="message-body">{m.content}</p>}
              {open === m.id && (
                <div className="msg__actions">
                  <button type="button" className="link" data-testid={`message-delete-${m.id}`} onClick={() => remove(m)}>{t('messages.delete')}</button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

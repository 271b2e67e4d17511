/**
 * The error boundary around each lazy region (route screens, popups, the betslip, the left
 * menu, the search overlay). Without one, an error while drawing (above all a chunk that
 * still fails to load after app/lazyRetry.ts's tries) unmounts the whole app: a blank page.
 * Here the region alone shows the spec's generic 'Sorry something went wrong please try
 * again later' with a button that reloads the page (after a deploy the old chunk names are
 * gone for good), and the rest of the app stays. `overlay` draws it as a popup, for regions
 * that cover the page; `silent` draws nothing, for extras the page does without (the
 * download banner, the runtime popups).
 */
import { Component, type ReactNode } from 'react';
import { useT } from '../i18n/useT';

interface Props {
  children: ReactNode;
  overlay?: boolean;
  silent?: boolean;
}

export class ChunkBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    const { children, overlay, silent } = this.props;
    if (!this.state.failed) return children;
    return silent ? null : <ChunkError overlay={overlay} />;
  }
}

// The language files hold the spec's generic message once, under casino.error; the button reuses the boot screen's 'Retry'.
function ChunkError({ overlay }: { overlay?: boolean }) {
  const t = useT();
  const body = (
    <div className={overlay ? 'popup' : 'empty'} role="alert" data-testid="chunk-error">
      <p className="popup__message">{t('casino.error')}</p>
      <button type="button" className="btn btn--primary" onClick={() => location.reload()}>{t('boot.error.retry')}</button>
    </div>
  );
  return overlay ? <div className="overlay">{body}</div> : body;
}

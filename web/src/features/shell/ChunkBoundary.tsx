/**
 * The error boundary around each lazy region (route screens, popups, the betslip, the left
 * menu, the search overlay). Without one, an error while drawing (above all a chunk that
 * still fails to load after app/lazyRetry.ts's tries) unmounts the whole app: a blank page.
 * Here the region alone shows the spec's generic 'Sorry something went wrong please try
 * again later' with a button that reloads the page (after a deploy the old chunk names are
 * gone for good), and the rest of the app stays. `overlay` draws it as a popup, for regions
 * that cover the page, with a close button: `onClose` closes the region (the call site's own
 * close action) and the boundary starts afresh. `silent` draws nothing, for extras the page
 * does without (the download banner, the runtime popups). A new `resetKey` (the route's
 * location) draws the region again; a lazy region that failed to load then imports again
 * (app/lazyRetry.ts). Every caught error goes to the console.
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { chunkBoundaryReset } from '../../app/lazyRetry';
import { useT } from '../i18n/useT';

type Props = {
  children: ReactNode;
  silent?: boolean;
  /** The error goes when this changes (the route screens: the location). */
  resetKey?: string;
} & ({ overlay?: false; onClose?: undefined } | { overlay: true; onClose: () => void });

export class ChunkBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('[ChunkBoundary] a region failed to draw:', error, info.componentStack);
  }

  componentDidUpdate(prev: Props) {
    if (this.state.failed && prev.resetKey !== this.props.resetKey) this.afresh();
  }

  /** Starts afresh: a lazy region that failed to load imports again when it is drawn again. */
  afresh() {
    chunkBoundaryReset();
    this.setState({ failed: false });
  }

  close = () => {
    this.props.onClose?.();
    this.afresh();
  };

  render() {
    const { children, overlay, silent } = this.props;
    if (!this.state.failed) return children;
    return silent ? null : <ChunkError onClose={overlay ? this.close : undefined} />;
  }
}

// The language files hold the spec's generic message once, under casino.error; the buttons reuse the boot screen's 'Retry' and common.close.
function ChunkError({ onClose }: { onClose?: () => void }) {
  const t = useT();
  const reload = <button type="button" className="btn btn--primary" onClick={() => location.reload()}>{t('boot.error.retry')}</button>;
  const body = (
    <div className={onClose ? 'popup' : 'empty'} role="alert" data-testid="chunk-error">
      <p className="popup__message">{t('casino.error')}</p>
      {onClose ? (
        <div className="sheet__actions">
          <button type="button" className="btn btn--ghost-dark" onClick={onClose}>{t('common.close')}</button>
          {reload}
        </div>
      ) : reload}
    </div>
  );
  return onClose ? <div className="overlay">{body}</div> : body;
}

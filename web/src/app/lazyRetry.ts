/**
 * React.lazy whose import is tried again before it fails. React.lazy keeps a rejected import
 * for good, so one failed chunk request (a network blip on a phone, a node restarting behind
 * the load balancer) would fail that screen until the page reloads. The import runs up to
 * three times (300 ms, then 1 s apart); what still fails reaches the nearest ChunkBoundary
 * (features/shell/ChunkBoundary.tsx), which offers a reload.
 *
 * Browsers that still keep a failed module fetch in their module map (the rule whatwg/html
 * #10327 drops) answer the retry at once with the same error: there the boundary is the cure.
 */
import { lazy } from 'react';

const RETRY_DELAYS_MS = [300, 1000];

/** `load()`, tried again after each delay while it rejects. */
export const retryImport = <T>(load: () => Promise<T>, delays = RETRY_DELAYS_MS): Promise<T> =>
  load().catch((err: unknown) => {
    if (!delays.length) throw err;
    return new Promise((wake) => setTimeout(wake, delays[0])).then(() => retryImport(load, delays.slice(1)));
  });

/** React.lazy over `retryImport(load)`. */
export const lazyRetry: typeof lazy = (load) => lazy(() => retryImport(load));

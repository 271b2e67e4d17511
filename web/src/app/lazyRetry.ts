/**
 * React.lazy whose import is tried again before it fails. React.lazy keeps a rejected import
 * for good, so one failed chunk request (a network blip on a phone, a node restarting behind
 * the load balancer) would fail that screen until the page reloads. The import runs up to
 * three times (300 ms, then 1 s apart); what still fails reaches the nearest ChunkBoundary
 * (features/shell/ChunkBoundary.tsx), which offers a reload. Once that boundary starts afresh
 * (its region closed, the route changed: `chunkBoundaryReset`), the region drawn again imports
 * again instead of showing the old failure.
 *
 * Browsers that still keep a failed module fetch in their module map (the rule whatwg/html
 * #10327 drops) answer the retry at once with the same error: there the boundary is the cure.
 */
import { createElement, lazy, type ComponentProps, type ComponentType } from 'react';

const RETRY_DELAYS_MS = [300, 1000];

/** `load()`, tried again after each delay while it rejects. */
export const retryImport = <T>(load: () => Promise<T>, delays = RETRY_DELAYS_MS): Promise<T> =>
  load().catch((err: unknown) => {
    if (!delays.length) throw err;
    return new Promise((wake) => setTimeout(wake, delays[0])).then(() => retryImport(load, delays.slice(1)));
  });

/** Counts the error boundaries that started afresh (ChunkBoundary calls it). */
let resets = 0;
export const chunkBoundaryReset = () => {
  resets += 1;
};

/**
 * React.lazy over `retryImport(load)`; after a failure, a fresh React.lazy once a boundary has
 * started afresh (within one attempt, React's own retry of the render sees the same failure).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lazyRetry<T extends ComponentType<any>>(load: () => Promise<{ default: T }>) {
  let failedAt: number | null = null;
  const make = () =>
    lazy(() =>
      retryImport(load).catch((err: unknown) => {
        failedAt = resets;
        throw err;
      }),
    );
  let current = make();
  return function LazyRegion(props: ComponentProps<T>) {
    if (failedAt !== null && failedAt < resets) {
      failedAt = null;
      current = make();
    }
    return createElement(current, props);
  };
}

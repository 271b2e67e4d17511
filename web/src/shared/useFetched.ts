import { useCallback, useEffect, useEffectEvent } from 'react';

/**
 * Runs `fetch` on mount and whenever it changes (a new callback, from its own deps; `null`
 * fetches nothing), handing the answer to `onValue` or the failure to `onError` from the
 * promise's callbacks (never synchronously in the effect, never after the fetch was replaced
 * or the component unmounted). Returns `reload`: the same fetch again, awaitable, for after
 * an action.
 */
export function useFetched<T>(
  fetch: (() => Promise<T>) | null,
  onValue: (value: T) => void,
  onError?: (err: unknown) => void,
): () => Promise<void> {
  const value = useEffectEvent(onValue);
  const failed = useEffectEvent((err: unknown) => onError?.(err));
  useEffect(() => {
    if (!fetch) return;
    let live = true;
    fetch().then(
      (v) => {
        if (live) value(v);
      },
      (err: unknown) => {
        if (live) failed(err);
      },
    );
    return () => {
      live = false;
    };
  }, [fetch]);
  return useCallback(async () => {
    if (!fetch) return;
    try {
      onValue(await fetch());
    } catch (err) {
      onError?.(err);
    }
  }, [fetch, onValue, onError]);
}

import { useCallback, useEffect, useEffectEvent, useState } from 'react';

/** Resend countdown (spec 000 section 4): 60 s; at 0 it stops, calls onTimeout and resets. */
export const RESEND_SECONDS = 60;

export function useCountdown(seconds = RESEND_SECONDS, onTimeout?: () => void) {
  const [remaining, setRemaining] = useState(seconds);
  // each start is a new run (a start while running restarts the count)
  const [run, setRun] = useState({ id: 0, on: false });
  const timedOut = useEffectEvent(() => onTimeout?.());

  useEffect(() => {
    if (!run.on) return;
    let left = seconds;
    const timer = setInterval(() => {
      left -= 1;
      if (left > 0) {
        setRemaining(left);
        return;
      }
      clearInterval(timer);
      setRun((r) => ({ ...r, on: false }));
      setRemaining(seconds);
      timedOut();
    }, 1000);
    return () => clearInterval(timer);
  }, [run, seconds]);

  const start = useCallback(() => {
    setRemaining(seconds);
    setRun((r) => ({ id: r.id + 1, on: true }));
  }, [seconds]);
  const stop = useCallback(() => {
    setRun((r) => ({ ...r, on: false }));
    setRemaining(seconds);
  }, [seconds]);
  return { remaining, running: run.on, start, stop };
}

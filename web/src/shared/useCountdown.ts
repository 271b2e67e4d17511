import { useCallback, useEffect, useRef, useState } from 'react';

/** Resend countdown (spec 000 section 4): 60 s; at 0 it stops, calls onTimeout and resets. */
export const RESEND_SECONDS = 60;

export function useCountdown(seconds = RESEND_SECONDS, onTimeout?: () => void) {
  const [remaining, setRemaining] = useState(seconds);
  const [running, setRunning] = useState(false);
  const timeoutRef = useRef(onTimeout);
  timeoutRef.current = onTimeout;

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setRemaining((n) => Math.max(0, n - 1)), 1000);
    return () => clearInterval(timer);
  }, [running]);

  useEffect(() => {
    if (!running || remaining > 0) return;
    setRunning(false);
    setRemaining(seconds);
    timeoutRef.current?.();
  }, [running, remaining, seconds]);

  const start = useCallback(() => {
    setRemaining(seconds);
    setRunning(true);
  }, [seconds]);
  const stop = useCallback(() => {
    setRunning(false);
    setRemaining(seconds);
  }, [seconds]);
  return { remaining, running, start, stop };
}

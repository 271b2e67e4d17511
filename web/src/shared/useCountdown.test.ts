import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RESEND_SECONDS, useCountdown } from './useCountdown';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('resend countdown', () => {
  it('counts 60 s down, then stops, calls back and resets to 60', () => {
    const onTimeout = vi.fn();
    const { result } = renderHook(() => useCountdown(RESEND_SECONDS, onTimeout));
    expect(result.current).toMatchObject({ remaining: 60, running: false });
    act(() => result.current.start());
    expect(result.current).toMatchObject({ remaining: 60, running: true });
    act(() => void vi.advanceTimersByTime(1000));
    expect(result.current.remaining).toBe(59);
    act(() => void vi.advanceTimersByTime(58_000));
    expect(result.current).toMatchObject({ remaining: 1, running: true });
    expect(onTimeout).not.toHaveBeenCalled();
    act(() => void vi.advanceTimersByTime(1000));
    expect(result.current).toMatchObject({ remaining: 60, running: false });
    expect(onTimeout).toHaveBeenCalledTimes(1);
    act(() => void vi.advanceTimersByTime(5000));
    expect(result.current.remaining).toBe(60);
  });

  it('stops early on request', () => {
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start());
    act(() => void vi.advanceTimersByTime(3000));
    act(() => result.current.stop());
    expect(result.current).toMatchObject({ remaining: 60, running: false });
  });
});

import { vi } from 'vitest';

/** Lets WebCrypto (real event loop) and a fake clock's pending microtasks settle. */
export async function settle(rounds = 30) {
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setImmediate(r));
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  }
}

/**
 * Settles until `cond` holds (the first WebCrypto calls take longest).
 * Bounded by real time, not by rounds: WebCrypto runs on the thread pool,
 * which a busy machine (CI runs the Rust tests alongside) slows down.
 */
export async function until(cond: () => boolean, what = 'condition') {
  const deadline = performance.now() + 15_000;
  while (!cond() && performance.now() < deadline) await settle(1);
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
  await settle(5);
}

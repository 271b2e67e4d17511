import { vi } from 'vitest';

/** Lets WebCrypto (real event loop) and a fake clock's pending microtasks settle. */
export async function settle(rounds = 30) {
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setImmediate(r));
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  }
}

/** Settles until `cond` holds (the first WebCrypto calls take longest). */
export async function until(cond: () => boolean, what = 'condition') {
  for (let i = 0; i < 3000 && !cond(); i++) await settle(1);
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
  await settle(5);
}

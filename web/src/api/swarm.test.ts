import { describe, expect, it } from 'vitest';
import { mergeDiff } from './swarm';

/** The server's diff (domain/src/swarm/diff.rs), written small for the property test. */
function diff(old: unknown, next: unknown): unknown {
  const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!obj(old) || !obj(next)) return next;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(old)) if (!(k in next)) out[k] = null;
  for (const [k, v] of Object.entries(next)) {
    if (!(k in old)) out[k] = v;
    else if (JSON.stringify(old[k]) !== JSON.stringify(v)) out[k] = diff(old[k], v);
  }
  return out;
}

/** A seeded generator so a failure reproduces. */
function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 0 && r < 0.45) {
    const out: Record<string, unknown> = {};
    const n = Math.floor(next() * 5);
    for (let i = 0; i < n; i++) out[String(Math.floor(next() * 8))] = randomValue(next, depth - 1);
    return out;
  }
  if (r < 0.6) return Math.round(next() * 100) / 10;
  if (r < 0.75) return `s${Math.floor(next() * 5)}`;
  if (r < 0.85) return next() < 0.5;
  return [Math.floor(next() * 3), 'x'];
}

describe('mergeDiff', () => {
  it('deletes on null, replaces scalars and arrays, merges objects', () => {
    const before = { a: 1, b: { c: 2, d: 3 }, e: [1, 2], f: 'x' };
    expect(mergeDiff(before, { a: 5, b: { d: null, g: 7 }, e: [3], f: null })).toEqual({ a: 5, b: { c: 2, g: 7 }, e: [3] });
    expect(before).toEqual({ a: 1, b: { c: 2, d: 3 }, e: [1, 2], f: 'x' }); // pure
  });

  it('creates missing branches and replaces a scalar by an object', () => {
    expect(mergeDiff({ a: 1 }, { b: { c: { d: 1 } } })).toEqual({ a: 1, b: { c: { d: 1 } } });
    expect(mergeDiff({ a: 1 }, { a: { b: 2 } })).toEqual({ a: { b: 2 } });
    expect(mergeDiff(null, { a: 1 })).toEqual({ a: 1 });
  });

  it('keeps the identity of untouched branches', () => {
    const before = { game: { '1': { price: '1.5' }, '2': { price: '2.0' } } };
    const after = mergeDiff(before, { game: { '1': { price: '1.6' } } });
    expect(after.game['2']).toBe(before.game['2']);
    expect(after.game['1']).not.toBe(before.game['1']);
  });

  it('applies a typical price push', () => {
    const data = { game: { '7': { market: { '8': { event: { '9': { price: '1.880', name: 'Over' } } } } } } };
    const pushed = mergeDiff(data, { game: { '7': { market: { '8': { event: { '9': { price: '1.910' } } } } } } });
    expect(pushed.game['7'].market['8'].event['9']).toEqual({ price: '1.910', name: 'Over' });
  });

  it('property: merging the diff of two random documents gives the second', () => {
    const next = rng(42);
    for (let i = 0; i < 500; i++) {
      const a = randomValue(next, 4);
      const b = randomValue(next, 4);
      expect(mergeDiff(a, diff(a, b)), `case ${i}`).toEqual(b);
      // and a chain of diffs replays a sequence of states
      const c = randomValue(next, 4);
      expect(mergeDiff(mergeDiff(a, diff(a, b)), diff(b, c))).toEqual(c);
    }
  });
});

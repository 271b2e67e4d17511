/**
 * What react-i18next imports from i18next at run time, for the first-load bundle only
 * (vite.config.ts, build): its single helper `keyFromSelector`, which turns a selector
 * function key (t($ => $.a.b)) into 'a.b'. The client passes string keys only, so the
 * helper is never reached; i18next itself stays in its own chunk (engine.ts).
 */
export function keyFromSelector(): string {
  throw new Error('selector keys are not used by this client');
}

/**
 * Cash-out rules (spec 000 sections 4, 5, 9; docs/cashout-and-backoffice.md): the
 * partial amount, the auto-rule bounds and the dialog's state. Pure functions.
 */
import Big from 'big.js';

/** Slider step of the partial amount. */
export const STEP = 0.01;
/** The auto trigger lies between 1% above the current amount and 1% below the possible win. */
export const AUTO_MIN_FACTOR = 1.01;
export const AUTO_MAX_FACTOR = 0.99;

/**
 * Exact decimals (big.js, as the betslip arithmetic): a number here is the decimal the server sent ("12.3") or
 * the member typed, and Big reads it as that decimal, so 12.3 x 1.01 is 12.423, not 12.423000000000002.
 */
const big = (value: number | string) => {
  try {
    return new Big(value);
  } catch {
    return new Big(0);
  }
};
const ROUND_DOWN = 0;
const ROUND_HALF_UP = 1;
const ROUND_UP = 3;

export const ceil2 = (value: number | Big) => Number(big(value.toString()).round(2, ROUND_UP));
export const floor2 = (value: number | Big) => Number(big(value.toString()).round(2, ROUND_DOWN));
/** Two places, half away from zero ((1.005).toFixed(2) is '1.00'; this is '1.01'). */
export const money2 = (value: number | string) => (Number.isFinite(Number(value)) ? big(value).toFixed(2, ROUND_HALF_UP) : '0.00');

/** A typed amount as a number; NaN when it is not one. */
export function parseAmount(text: string): number {
  const trimmed = text.trim();
  return /^\d+(\.\d*)?$|^\.\d+$/.test(trimmed) ? Number(trimmed) : NaN;
}

/** Keeps digits and one decimal point, two places at most. */
export function sanitizeAmount(text: string): string {
  const clean = text.replace(/[^\d.]/g, '');
  const [whole = '', ...rest] = clean.split('.');
  return rest.length === 0 ? whole : `${whole}.${rest.join('').slice(0, 2)}`;
}

export interface Bounds {
  min: number;
  max: number;
}

/** The partial slider: 0.01 up to the current cash-out amount. */
export const partialBounds = (current: number): Bounds => ({ min: STEP, max: floor2(current) });

/** The auto trigger: [current * 1.01, possible win * 0.99], lower bound up, upper bound down. */
export const autoBounds = (current: number, possibleWin: number): Bounds => ({
  min: ceil2(big(current).times(String(AUTO_MIN_FACTOR))),
  max: floor2(big(possibleWin).times(String(AUTO_MAX_FACTOR))),
});

/** A message by language-file key. */
export interface Msg {
  key: string;
  args?: Array<string | number>;
  text?: string;
}

/** Why a partial amount cannot be sent, or null. */
export function partialError(text: string, current: number): Msg | null {
  const value = parseAmount(text);
  if (text.trim() === '') return { key: 'validation.required' };
  if (!Number.isFinite(value) || value < STEP) return { key: 'validation.min_amount', args: [money2(STEP)] };
  if (value > current) return { key: 'validation.max_amount', args: [money2(floor2(current))] };
  return null;
}

/** The partial amount after the current amount moved: never above it. */
export function clampPartial(text: string, current: number): string {
  const value = parseAmount(text);
  if (!Number.isFinite(value)) return text;
  return value > current ? money2(floor2(current)) : text;
}

/** Why an auto rule cannot be set, or null: the trigger within its bounds, the partial amount at most the trigger. */
export function autoErrors(trigger: string, partial: string, bounds: Bounds): { trigger: Msg | null; partial: Msg | null } {
  const t = parseAmount(trigger);
  let triggerError: Msg | null = null;
  if (trigger.trim() === '') triggerError = { key: 'validation.required' };
  else if (!Number.isFinite(t) || t < bounds.min) triggerError = { key: 'validation.min_amount', args: [money2(bounds.min)] };
  else if (t > bounds.max) triggerError = { key: 'validation.max_amount', args: [money2(bounds.max)] };
  let partialError: Msg | null = null;
  if (partial.trim() !== '') {
    const p = parseAmount(partial);
    if (!Number.isFinite(p) || p <= 0) partialError = { key: 'validation.min_amount', args: [money2(STEP)] };
    else if (Number.isFinite(t) && p > t) partialError = { key: 'validation.max_amount', args: [money2(t)] };
  }
  return { trigger: triggerError, partial: partialError };
}

/** The cash-out dialog's states (spec 000 section 4). */
export type CashoutPhase = 'closed' | 'loading' | 'error' | 'notCashable' | 'normal' | 'ruleActive' | 'done';

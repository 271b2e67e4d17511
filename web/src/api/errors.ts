/**
 * The error catalogue (spec section 8): server codes map to language-file keys.
 * Each entry carries the English text used only when no language file is loaded
 * yet (a failed boot); everywhere else the text comes from the language file.
 */

/** Codes the client invents for failures that never reached a server envelope. */
export const CLIENT_CODES = {
  NETWORK: -1,
  TIMEOUT: -2,
  HTTP: -3,
  BAD_RESPONSE: -4,
} as const;

/** Server code for "not logged in" (spec section 8, Swarm code 12 too). */
export const NOT_LOGGED_IN = 12;

export interface Message {
  key: string;
  /** Values for the {1}, {2} ... placeholders. */
  args: Array<string | number>;
}

const CATALOGUE: Record<number, Message['key']> = {
  12: 'error.12',
  20: 'error.20',
  21: 'error.21',
  1002: 'error.1002',
  1003: 'error.1003',
  1004: 'error.1004',
  1009: 'error.1009',
  1013: 'validation.password_short',
  1022: 'error.1022',
  1026: 'error.1026',
  1027: 'error.1027',
  1100: 'error.game_started',
  1102: 'error.game_started',
  1108: 'error.1108',
  1109: 'error.1109',
  1510: 'error.1510',
  1800: 'error.1800',
  // bet refusals the platform adds (docs/protocol.md "Codes the platform adds")
  1901: 'betslip.msg.add_more',
  1902: 'betslip.event_not_available',
  1903: 'betslip.event_blocked',
  1904: 'betslip.cannot_combine',
  1905: 'betslip.msg.conflict',
  1906: 'betslip.msg.odds_limit',
  // free bets (bonus_id): unknown, used, expired, or not the free bet's whole amount
  1912: 'error.1912',
  // booking ids (docs/protocol.md "Booking ids")
  1930: 'betslip.booking_not_found',
  1931: 'betslip.booking_too_many',
  2400: 'error.2400',
  // stake limits, payments (spec 000 section 8) and the rest of the platform's bet codes
  1550: 'error.1550',
  1560: 'error.1560',
  // responsible gambling (DESIGN.md "Responsible gambling"): self-exclusion, a time-out, the member's
  // own deposit, loss and stake limits, identity before a first withdrawal; their
  // texts are the client's additions to the language files (features/i18n/strings), not boot strings
  2406: 'error.2406',
  2428: 'error.2428',
  2431: 'error.2431',
  2432: 'error.2432',
  2433: 'error.2433',
  2434: 'error.2434',
  20003: 'error.20003',
  20004: 'error.20004',
  20007: 'error.20007',
  1907: 'error.1907',
  1908: 'error.1908',
  1909: 'error.1909',
  1910: 'error.1910',
  1911: 'error.1911',
  1913: 'error.1913',
  1914: 'error.1914',
  1010: 'error.1010',
  1012: 'validation.phone_invalid',
  1014: 'error.1014',
  1118: 'validation.username_exists',
  1119: 'validation.email_exists',
  [-601]: 'error.session_expired',
  [-10010]: 'error.safety_required',
  // unbinding and the birth date (docs/protocol.md, platform-defined)
  [-10105]: 'error.-10105',
  [-10106]: 'error.-10106',
  [-10107]: 'error.-10107',
  [CLIENT_CODES.NETWORK]: 'error.network',
  [CLIENT_CODES.TIMEOUT]: 'error.network',
  [CLIENT_CODES.BAD_RESPONSE]: 'error.bad_response',
};

/** English texts of the keys above, for the moment before any language file exists. */
export const ENGLISH_FALLBACK: Record<string, string> = {
  'error.12': 'Not logged in',
  'error.20': 'Balance less than withdrawal',
  'error.21': 'Verification code does not match',
  'error.1002': 'Invalid username and/or password',
  'error.1003': 'Wrong password',
  'error.1004': 'User is locked',
  'error.1009': 'Code expired',
  'validation.password_short': 'Password is too short',
  'error.1022': 'Your account has been locked. Please try again later.',
  'error.1026': 'Only one active super bet',
  'error.1027': 'No counter offer to answer',
  'error.game_started': 'Game started',
  'error.1108': 'Wrong coefficient',
  'error.1109': 'Wrong amount',
  'error.1510': 'The bet amount exceeds your current limit',
  'error.1800': 'The odds have changed',
  'error.1912': 'This free bet cannot be used.',
  'error.2400': 'Insufficient balance',
  'error.1550': 'The stake is above the maximum',
  'error.1560': 'The stake is below the minimum',
  'error.20003': 'The amount is below the minimum',
  'error.20004': 'The amount is above the maximum',
  'error.20007': 'You already have a valid withdrawal request',
  'error.1907': 'Starting price is not available for this event.',
  'error.1908': 'Each way is not available for this event.',
  'error.1909': 'The bet is not valid.',
  'error.1910': 'This bet cannot be changed now.',
  'error.1911': 'This bet was not found.',
  'error.1913': 'Too many events in betslip.',
  'error.1914': 'Too many combinations in this system bet.',
  'error.websocket_disconnected': 'Your connection is lost, please refresh and try again',
  'error.event_locked': 'Handicap is locked',
  'error.limit_error': 'Odds have been corrected',
  'error.onhold': 'Waiting for confirmation',
  'error.too_many_requests': 'Too many requests, please wait a moment and try again',
  'error.request_failed': 'The request could not be completed, please try again',
  'error.1010': 'Invalid password format',
  'validation.phone_invalid': 'This is not a valid phone number',
  'error.1014': 'This phone number is already registered',
  'validation.username_exists': 'This username already exists in our database, please enter another',
  'validation.email_exists': 'This email already exists in our database, please enter another',
  'error.session_expired': 'Sorry, your login status has expired, please log in again',
  'error.safety_required': 'This device has not been verified yet. Please complete the safety verification.',
  'error.network': 'Network request failed',
  'error.bad_response': 'Invalid server response',
  'error.http': 'Request failed (HTTP {1})',
  'error.unknown': 'Unknown error ({1})',
};

/**
 * Codes whose server `msg` is the text to show: the duplicate-submission guard and
 * the code rules carry the wait in it, -10101 carries the field rule's message, and
 * the remaining registration field codes name what is wrong with the field (1119,
 * the one e-mail code, says whether the address is invalid, taken or not the bound
 * one; 1134 is a phone that is not the bound one).
 */
export const SERVER_TEXT_CODES: ReadonlySet<number> = new Set([
  -66666, -66667, -66668, -10101, -10108, -10109, -10201, -10202, 1119, 1127, 1134, 2006, 50006, 50020, 2098, 3001, 2002,
]);

/**
 * Refusals that say how many seconds to wait (`data.wait`): shown from the language file's
 * `error.<code>` with the wait as {1}, so they read in the member's language.
 */
export const WAIT_CODES: ReadonlySet<number> = new Set([-66666, -66667, -66668, -10108, -10109]);

/** The message for a code; codes outside the catalogue give 'Unknown error ({1})'. */
export function messageForCode(code: number, httpStatus?: number): Message {
  if (code === CLIENT_CODES.HTTP) return { key: 'error.http', args: [httpStatus ?? 0] };
  const key = CATALOGUE[code];
  return key ? { key, args: [] } : { key: 'error.unknown', args: [code] };
}

/** Replaces {1}, {2} ... with the given values (1-based, as the language files write them). */
export function fillPlaceholders(template: string, args: ReadonlyArray<string | number>): string {
  return template.replace(/\{(\d+)\}/g, (whole, n: string) => {
    const value = args[Number(n) - 1];
    return value === undefined ? whole : String(value);
  });
}

/**
 * The spec's named errors (section 8) with their language-file keys: the client raises these itself.
 * CHANGE_ODD reads as 1800 'The odds have changed', GAME_STARTED as 1100.
 */
export const NAMED_ERRORS = {
  WEBSOCKET_DISCONNECTED: 'error.websocket_disconnected',
  ONHOLD: 'error.onhold',
  CHANGE_ODD: 'error.1800',
  EVENT_LOCKED: 'error.event_locked',
  LIMIT_ERROR: 'error.limit_error',
  GAME_STARTED: 'error.game_started',
} as const;
export type NamedError = keyof typeof NAMED_ERRORS;

export const messageForName = (name: NamedError): Message => ({ key: NAMED_ERRORS[name], args: [] });

/** Swarm protocol codes (the envelope's `code`, not a bet's `result`): 5 session lost, 12 not logged in, 29 too many. */
const SWARM_SESSION_LOST = 5;
const SWARM_TOO_MANY = 29;

/**
 * What a member reads when a live-data command failed: a language-file message, never the server's or the
 * socket's own text ('swarm code 3', 'websocket closed'). `err` is a SwarmError-like `{code}` or any Error.
 */
export function messageForFailure(err: unknown): Message {
  const code = typeof err === 'object' && err !== null && 'code' in err ? Number((err as { code: unknown }).code) : NaN;
  if (Number.isFinite(code)) {
    if (code === NOT_LOGGED_IN) return { key: 'error.12', args: [] };
    if (code === SWARM_SESSION_LOST) return messageForName('WEBSOCKET_DISCONNECTED');
    if (code === SWARM_TOO_MANY) return { key: 'error.too_many_requests', args: [] };
    return { key: 'error.request_failed', args: [] };
  }
  const text = err instanceof Error ? err.message : '';
  if (/websocket|answer timeout|swarm/i.test(text)) return messageForName('WEBSOCKET_DISCONNECTED');
  return { key: 'error.network', args: [] };
}

/** A refused command's `result` code: the catalogue message, or 'Unknown error (N)' (never the server's text). */
export const messageForRefusal = (code: unknown): Message => {
  const n = Number(code);
  return messageForCode(Number.isFinite(n) ? n : CLIENT_CODES.BAD_RESPONSE);
};

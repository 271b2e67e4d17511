/** The responsible gambling refusals (api/errors.ts): screens with a generic failure text show these as they are. */
export const SAFER_REFUSALS: ReadonlySet<number> = new Set([2406, 2428, 2431, 2432, 2433, 2434]);

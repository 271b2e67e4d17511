/** Where the safer gambling page lives (a /setting/ page of the account chunk; the footer links to it). */
export const SAFER_PATH = '/setting/safergambling';

import { ENGLISH_FALLBACK } from '../../api/errors';
import type { Strings } from './i18nSlice';

/**
 * What the boot screens need before any language file has arrived (a failed
 * configuration load). A unit test keeps these equal to eng.json, which stays the
 * source of the texts.
 */
export const BOOT_STRINGS: Strings = {
  'app.loading': 'Loading…',
  'boot.error.title': 'Unable to load',
  'boot.error.online': 'Online',
  'boot.error.online_yes': 'Yes',
  'boot.error.online_no': 'No',
  'boot.error.user_agent': 'Device',
  'boot.error.code': 'Code',
  'boot.error.retry': 'Retry',
  ...ENGLISH_FALLBACK,
};

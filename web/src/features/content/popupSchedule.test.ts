import { describe, expect, it } from 'vitest';
import { coverDue, nextPopup, popupDue, readShown, rememberShown, repeatSeconds, type RuntimePopup } from './popupSchedule';

const H = 3_600_000;
const D = 24 * H;
const popup = (audience: RuntimePopup['audience'], repeat: RuntimePopup['repeat'], minutes = 0): RuntimePopup =>
  ({ id: 1, title: 't', audience, repeat, minutes });

describe('popup schedule (spec 001 sections 4 and 9)', () => {
  it('repeat intervals are 86,400, 604,800, 2,592,000 s and custom minutes x 60', () => {
    expect(repeatSeconds('daily')).toBe(86_400);
    expect(repeatSeconds('weekly')).toBe(604_800);
    expect(repeatSeconds('monthly')).toBe(2_592_000);
    expect(repeatSeconds('custom', 15)).toBe(900);
    expect(repeatSeconds('never')).toBe(0);
  });

  it('shows to guests, members or all by audience', () => {
    expect(popupDue(popup('guests', 'daily'), false, undefined, 0)).toBe(true);
    expect(popupDue(popup('guests', 'daily'), true, undefined, 0)).toBe(false);
    expect(popupDue(popup('members', 'daily'), false, undefined, 0)).toBe(false);
    expect(popupDue(popup('members', 'daily'), true, undefined, 0)).toBe(true);
    expect(popupDue(popup('all', 'daily'), true, undefined, 0)).toBe(true);
    expect(popupDue(popup('all', 'daily'), false, undefined, 0)).toBe(true);
  });

  it('never: shown once per browser', () => {
    expect(popupDue(popup('all', 'never'), false, undefined, 10)).toBe(true);
    expect(popupDue(popup('all', 'never'), false, 10, 10 + 365 * D)).toBe(false);
  });

  it('daily, weekly, monthly and custom come back once their interval has passed', () => {
    const t0 = 1_000_000_000_000;
    expect(popupDue(popup('all', 'daily'), false, t0, t0 + D - 1)).toBe(false);
    expect(popupDue(popup('all', 'daily'), false, t0, t0 + D)).toBe(true);
    expect(popupDue(popup('all', 'weekly'), false, t0, t0 + 6 * D)).toBe(false);
    expect(popupDue(popup('all', 'weekly'), false, t0, t0 + 7 * D)).toBe(true);
    expect(popupDue(popup('all', 'monthly'), false, t0, t0 + 29 * D)).toBe(false);
    expect(popupDue(popup('all', 'monthly'), false, t0, t0 + 30 * D)).toBe(true);
    expect(popupDue(popup('all', 'custom', 30), false, t0, t0 + 29 * 60_000)).toBe(false);
    expect(popupDue(popup('all', 'custom', 30), false, t0, t0 + 30 * 60_000)).toBe(true);
  });

  it('the first due popup wins; the last-shown time is remembered per browser', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    const list = [{ ...popup('members', 'daily'), id: 1 }, { ...popup('all', 'never'), id: 2 }, { ...popup('all', 'daily'), id: 3 }];
    expect(nextPopup(list, false, readShown(storage), 0)?.id).toBe(2);
    rememberShown(2, 5, storage);
    expect(nextPopup(list, false, readShown(storage), 10)?.id).toBe(3);
    rememberShown(3, 10, storage);
    expect(nextPopup(list, false, readShown(storage), 20)).toBeNull();
    storage.setItem('popupsShown', 'not json');
    expect(readShown(storage)).toEqual({});
  });

  it('the cover popup is fetched at most once an hour', () => {
    expect(coverDue(undefined, 0)).toBe(true);
    expect(coverDue(0, H - 1)).toBe(false);
    expect(coverDue(0, H)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { backHref, matchRoute } from '../../app/router';

describe('payment routes (spec 001 section 2.1)', () => {
  it('match every user-centre and fortune-centre path', () => {
    const page = (p: string) => matchRoute(p, []);
    for (const name of ['deposit', 'depositprogress', 'withdraw', 'transfer', 'monthlyCard']) {
      expect(page(`/usercenter/${name}`)).toEqual({ page: 'payments', name });
    }
    for (const name of ['managebankcard', 'manageusdt', 'addbankcard', 'addusdt', 'withdrawprogress', 'submitwithdraw']) {
      expect(page(`/usercenter/withdraw/${name}`)).toEqual({ page: 'payments', name });
    }
    expect(page('/fortunecenter')).toEqual({ page: 'payments', name: 'fortunecenter' });
    expect(page('/fortunecenter/reportcenter')).toEqual({ page: 'payments', name: 'reportcenter' });
    expect(page('/fortunecenter/flowreport')).toEqual({ page: 'payments', name: 'flowreport' });
    expect(page('/usercenter/userinfo')).toEqual({ page: 'userinfo' });
  });

  it('refuse unknown sub-pages', () => {
    expect(matchRoute('/usercenter/deposit/x', []).page).toBe('notFound');
    expect(matchRoute('/usercenter/transfer/addusdt', []).page).toBe('notFound');
    expect(matchRoute('/fortunecenter/other', []).page).toBe('notFound');
  });

  it('go back to home from the user centre and to the user centre from the fortune centre (section 2.3)', () => {
    expect(backHref('/usercenter/deposit')).toBe('/');
    expect(backHref('/fortunecenter/reportcenter')).toBe('/usercenter');
  });
});

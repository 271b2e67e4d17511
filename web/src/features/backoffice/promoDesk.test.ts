import { describe, expect, it } from 'vitest';
import {
  boardBody, boardForm, campaignBody, campaignForm, chances, goodsBody, goodsForm, parseTiers, referralBody, referralForm, taskSettingsBody,
  taskSettingsForm, textIn, textsOf, validateBoard, validateCampaign, validateGoods, validateReferral, validateReview, validateTaskSettings,
  type BoardDef, type CampaignDef,
} from './promoDesk';

const NOW = Date.UTC(2026, 5, 1, 12, 0);

describe('texts per language (docs/promotions.md)', () => {
  it('an old single string reads as the same text in every language; lists show the desk language, else eng', () => {
    expect(textsOf('Power bank')).toEqual({ zhh: 'Power bank', eng: 'Power bank', tha: 'Power bank' });
    const t = textsOf({ zhh: '充电宝', eng: 'Power bank', tha: '' });
    expect(textIn(t, 'zhh')).toBe('充电宝');
    expect(textIn(t, 'tha')).toBe('Power bank');
  });
});

describe('campaign form', () => {
  const valid = () => {
    const f = campaignForm(null, [], NOW);
    f.slug = 'summer-reload';
    f.pages.eng.title = 'Summer reload';
    f.pages.tha.title = 'โบนัสฝากซ้ำ';
    return f;
  };

  it('a new campaign takes a free aid (never 5 or 13) and a month-long period, and a valid one passes', () => {
    expect(campaignForm(null, [{ id: 100 } as CampaignDef], NOW).id).toBe('101');
    expect(validateCampaign(valid())).toEqual({});
  });

  it('refuses a bad slug, a slug another campaign has, no page at all, an end before the start and aid 5', () => {
    const f = { ...valid(), slug: 'bad slug!', id: '5' };
    expect(validateCampaign(f)).toMatchObject({ slug: { key: 'bo.promo.v.slug' }, id: { key: 'bo.promo.v.reserved_id' } });
    const other = { id: 7, slug: 'summer-reload' } as CampaignDef;
    expect(validateCampaign(valid(), [other]).slug).toEqual({ key: 'bo.promo.v.slug_taken' });
    // a new campaign never replaces a stored one with its aid; editing it keeps it
    const stored = { id: 100, slug: 'old' } as CampaignDef;
    expect(validateCampaign(valid(), [stored], true).id).toEqual({ key: 'bo.promo.v.id_taken' });
    expect(validateCampaign(valid(), [stored], false).id).toBeUndefined();
    const empty = valid();
    empty.pages.eng.title = '';
    empty.pages.tha.title = '';
    expect(validateCampaign(empty)['pages.eng.title']).toEqual({ key: 'bo.promo.v.one_page' });
    const bodyOnly = valid();
    bodyOnly.pages.zhh.body = '只有内容';
    expect(validateCampaign(bodyOnly)['pages.zhh.title']).toBeDefined();
    expect(validateCampaign({ ...valid(), end: valid().start }).end).toEqual({ key: 'bo.promo.v.period' });
  });

  it('checks the rule parameters by rule: percent above 0 (rebates up to 100), amounts with 2 places, turnover tiers as pairs', () => {
    expect(validateCampaign({ ...valid(), percent: '0' })['rule.percent']).toEqual({ key: 'bo.promo.v.positive' });
    expect(validateCampaign({ ...valid(), rule: 'loss_rebate', percent: '150' })['rule.percent']?.key).toBe('bo.promo.v.amount');
    expect(validateCampaign({ ...valid(), max_bonus: '1.234' })['rule.max_bonus']?.key).toBe('bo.promo.v.amount');
    expect(validateCampaign({ ...valid(), rule: 'turnover', tiers: '1000 10\nfive 58' })['rule.tiers']).toEqual({ key: 'bo.promo.v.tiers' });
    expect(validateCampaign({ ...valid(), rule: 'turnover', tiers: '1000 10\n5000, 58' })).toEqual({});
    expect(parseTiers('1000 10\n\n5000:58')).toEqual([['1000', '10'], ['5000', '58']]);
  });

  it('the body is what domain::promo::campaign takes: only the pages given, the rule tagged by type, times in ms', () => {
    const f = { ...valid(), rule: 'loss_rebate' as const, percent: '5', minimum: '100', max_bonus: '888', currencies: ['THB'] };
    const body = campaignBody(f);
    expect(Object.keys(body.pages)).toEqual(['eng', 'tha']);
    expect(body.rule).toEqual({ type: 'loss_rebate', percent: '5', min_loss: '100', max_bonus: '888' });
    expect(body.audience).toEqual({ currencies: ['THB'], min_vip_level: 1, new_member_days: 0 });
    expect(body.end_ms - body.start_ms).toBe(30 * 86_400_000);
    const again = campaignForm(body, [], NOW);
    expect(again.minimum).toBe('100');
    expect(campaignBody(again)).toEqual(body);
    const tiers = campaignBody({ ...valid(), rule: 'turnover', tiers: '1000 10' }).rule;
    expect(tiers).toEqual({ type: 'turnover', tiers: [['1000', '10']] });
  });
});

describe('task definitions, claims and referral settings', () => {
  const stored = {
    signin: ['1', '2', '3'], turnover_multiple: '1',
    tasks: [{ id: 1, group: 'daily', kind: 'signin', target: '1', cash: '1', title: 'Sign in today' }],
  };

  it('an old single-string title loads in all three languages and is sent per language', () => {
    const f = taskSettingsForm(stored);
    expect(f.tasks[0]?.title).toEqual({ zhh: 'Sign in today', eng: 'Sign in today', tha: 'Sign in today' });
    expect(validateTaskSettings(f)).toEqual({});
    expect(taskSettingsBody(f).tasks[0]?.title).toEqual({ zhh: 'Sign in today', eng: 'Sign in today', tha: 'Sign in today' });
    expect(taskSettingsBody(f).signin).toEqual(['1', '2', '3']);
  });

  it('a title missing in one language, a duplicate id, a zero target and a bad sign-in table are refused', () => {
    const f = taskSettingsForm(stored);
    f.tasks.push({ ...f.tasks[0]!, title: { zhh: '', eng: 'x', tha: 'y' }, target: '0' });
    f.signin = '1, two';
    const e = validateTaskSettings(f);
    expect(e['tasks.1.title.zhh']).toEqual({ key: 'bo.promo.v.text_required', args: ['zhh'] });
    expect(e['tasks.1.id']).toEqual({ key: 'bo.promo.v.duplicate_id' });
    expect(e['tasks.1.target']).toEqual({ key: 'bo.promo.v.positive' });
    expect(e.signin).toEqual({ key: 'bo.promo.v.signin' });
  });

  it('a rejection needs a reason, an approval none', () => {
    expect(validateReview(false, '  ')).toEqual({ key: 'bo.v.reason' });
    expect(validateReview(true, '')).toBeNull();
    expect(validateReview(false, 'duplicate account')).toBeNull();
  });

  it('referral settings: the gift above 0, days 0 to 365', () => {
    const f = referralForm({ min_deposit: '500', gift: '58', days: 30, turnover_multiple: '2' });
    expect(validateReferral(f)).toEqual({});
    expect(referralBody(f)).toEqual({ min_deposit: '500', gift: '58', days: 30, turnover_multiple: '2' });
    expect(validateReferral({ ...f, gift: '0', days: '400' })).toMatchObject({ gift: { key: 'bo.promo.v.positive' }, days: { key: 'bo.promo.v.int' } });
  });
});

describe('prize board and goods', () => {
  const board: BoardDef = {
    prizes: Array.from({ length: 8 }, (_, i) => ({ slot: i + 1, name: `Prize ${i + 1}`, kind: i < 6 ? 'cash' : 'physical', cash: i < 6 ? '1' : '0', weight: 10, stock: 5 })),
    period: 'day', turnover_multiple: '1', open: true,
  };

  it('8 prizes with names in every language, cash prizes above 0; the body numbers slots 1 to 8', () => {
    const f = boardForm(board);
    expect(validateBoard(f)).toEqual({});
    f.prizes[0]!.name = { zhh: '一元', eng: 'One yuan', tha: '' };
    f.prizes[1]!.cash = '0';
    f.prizes[7]!.cash = 'not used';
    const e = validateBoard(f);
    expect(Object.keys(e).sort()).toEqual(['prizes.0.name.tha', 'prizes.1.cash']);
    expect(validateBoard({ ...f, prizes: f.prizes.slice(0, 7) }).prizes).toEqual({ key: 'bo.promo.v.eight' });
    const body = boardBody(boardForm(board));
    expect(body.prizes.map((p) => p.slot)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(body.prizes[7]).toMatchObject({ kind: 'physical', cash: '0', name: { zhh: 'Prize 8', eng: 'Prize 8', tha: 'Prize 8' } });
  });

  it('the chance is shared among the prizes with stock left this week', () => {
    expect(chances([{ weight: '30', left: 1 }, { weight: '10', left: 1 }, { weight: '60', left: 0 }])).toEqual(['75.0', '25.0', '0.0']);
    expect(chances([{ weight: '5', left: 0 }])).toEqual(['0.0']);
  });

  it('goods: a new item takes the next id; names in every language, a price above 0, cash goods need cash; limit 0 is no limit', () => {
    const f = goodsForm(null, [{ id: 4 } as never]);
    expect(f.id).toBe('5');
    const e = validateGoods(f);
    expect(e).toMatchObject({ 'name.zhh': { key: 'bo.promo.v.text_required' }, points: { key: 'validation.required' }, stock: { key: 'validation.required' } });
    const ok = { ...f, name: { zhh: '保温杯', eng: 'Thermos', tha: 'กระติกน้ำ' }, points: '300', stock: '20', limit: '0' };
    expect(validateGoods(ok)).toEqual({});
    expect(validateGoods({ ...ok, id: '4' }, [{ id: 4 } as never], true).id).toEqual({ key: 'bo.promo.v.id_taken' });
    expect(validateGoods({ ...ok, kind: 'cash', cash: '0' }).cash).toEqual({ key: 'bo.promo.v.positive' });
    const body = goodsBody(ok);
    expect(body).toMatchObject({ id: 5, kind: 'physical', cash: '0', stock: 20, limit: 0, on_sale: true, desc: { zhh: '', eng: '', tha: '' } });
    expect(goodsForm({ ...body, desc: 'Old text' }).desc).toEqual({ zhh: 'Old text', eng: 'Old text', tha: 'Old text' });
  });
});

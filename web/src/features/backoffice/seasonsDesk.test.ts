import { describe, expect, it } from 'vitest';
import { seasonTaskBody, seasonTaskForm, validateSeasonTask, type SeasonTaskDef } from './seasonsDesk';

const old: SeasonTaskDef = {
  id: 1, tasktype: 1, taskvalue: '5', taskdesc: 'Bet on 5 different days', bonusname: '18 cash', cash: '18', score: 0, bonuscnt: 1, needcheck: false,
};

describe('season task definitions per language (docs/seasons.md)', () => {
  it('an old single-string definition reads as the same text in every language and passes', () => {
    const f = seasonTaskForm(old);
    expect(f.taskdesc).toEqual({ zhh: 'Bet on 5 different days', eng: 'Bet on 5 different days', tha: 'Bet on 5 different days' });
    expect(f.bonusname.tha).toBe('18 cash');
    expect(validateSeasonTask(f, [old])).toEqual({});
  });

  it('requires taskdesc and bonusname in zhh, eng and tha, within 200 and 100 characters', () => {
    const f = seasonTaskForm(null, [old]);
    f.taskvalue = '3';
    f.cash = '8';
    f.taskdesc = { zhh: '', eng: 'Win 3 bets', tha: 'x'.repeat(201) };
    f.bonusname = { zhh: '8 现金红包', eng: '8 cash', tha: '' };
    expect(validateSeasonTask(f, [old], true)).toEqual({
      'taskdesc.zhh': { key: 'bo.promo.v.text_required', args: ['zhh'] },
      'taskdesc.tha': { key: 'bo.promo.v.text_max', args: [200] },
      'bonusname.tha': { key: 'bo.promo.v.text_required', args: ['tha'] },
    });
  });

  it('a new task takes the next free id, refuses a taken one and sends the three texts trimmed', () => {
    const f = seasonTaskForm(null, [old]);
    expect(f.id).toBe('2');
    f.taskvalue = '3';
    f.cash = '8';
    f.taskdesc = { zhh: ' 赢得3次投注 ', eng: 'Win 3 bets', tha: 'ชนะเดิมพัน 3 ครั้ง' };
    f.bonusname = { zhh: '8 现金红包', eng: '8 cash', tha: '8 เงินสด' };
    expect(validateSeasonTask(f, [old], true)).toEqual({});
    expect(validateSeasonTask({ ...f, id: '1' }, [old], true).id).toEqual({ key: 'bo.promo.v.id_taken' });
    expect(validateSeasonTask({ ...f, cash: '-1', tasktype: '9' }, [old], true)).toMatchObject({ cash: { key: 'bo.promo.v.amount', args: [1_000_000] }, tasktype: {} });
    expect(seasonTaskBody(f)).toMatchObject({ id: 2, tasktype: 1, taskvalue: '3', cash: '8', taskdesc: { zhh: '赢得3次投注', eng: 'Win 3 bets', tha: 'ชนะเดิมพัน 3 ครั้ง' } });
  });
});
